/** Where a transport remembers which run answers each chat (to resume it after a reload). */
export interface RunIdMemory {
  get(chatId: string): string | null;
  set(chatId: string, runId: string): void;
}

/** The part of the Web Storage API the memory uses (`sessionStorage`, `localStorage`). */
export type RunIdStorage = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * A chat id → run id memory: in a `Map`, or in a Web Storage (e.g. `sessionStorage`, which
 * survives a reload of the tab) under `runlight:chat:<chatId>`.
 *
 * @example
 * const runIds = createRunIdMemory(globalThis.sessionStorage);
 */
export function createRunIdMemory(storage?: RunIdStorage): RunIdMemory {
  if (storage === undefined) {
    const map = new Map<string, string>();
    return {
      get: (chatId) => map.get(chatId) ?? null,
      set: (chatId, runId) => void map.set(chatId, runId),
    };
  }
  const key = (chatId: string) => `runlight:chat:${chatId}`;
  return {
    get: (chatId) => storage.getItem(key(chatId)),
    set: (chatId, runId) => storage.setItem(key(chatId), runId),
  };
}
