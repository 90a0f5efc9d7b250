/** The part of `BroadcastChannel` the tabs use (a fake in tests). */
export interface TabChannel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  close(): void;
}

/** The part of the Web Locks API (`navigator.locks`) the election uses. */
export interface TabLocks {
  request(
    name: string,
    options: { signal?: AbortSignal },
    callback: (lock: unknown) => Promise<void>,
  ): Promise<unknown>;
}

/** What tab sharing needs from the browser; `defaultTabEnvironment()` gives the real one. */
export interface TabEnvironment {
  channel(name: string): TabChannel;
  locks: TabLocks;
  /**
   * Calls `listener(true)` when this page stops running (frozen, or kept in the back/forward
   * cache) and `listener(false)` when it runs again; returns the unsubscribe. A sleeping tab
   * hands the lead over.
   */
  onSleep?(listener: (asleep: boolean) => void): () => void;
}

interface BrowserGlobals {
  BroadcastChannel?: new (name: string) => TabChannel;
  navigator?: { locks?: TabLocks };
  document?: {
    addEventListener(type: string, listener: () => void): void;
    removeEventListener(type: string, listener: () => void): void;
  };
  addEventListener?(type: string, listener: (event: { persisted?: boolean }) => void): void;
  removeEventListener?(type: string, listener: (event: { persisted?: boolean }) => void): void;
}

/**
 * The browser's `BroadcastChannel` and `navigator.locks`, or `null` outside a page or where
 * either is missing (old browsers, some embedded views): there, every tab keeps its own stream.
 */
export function defaultTabEnvironment(): TabEnvironment | null {
  const globals = globalThis as BrowserGlobals;
  const Channel = globals.BroadcastChannel;
  const locks = globals.navigator?.locks;
  // A page only: a server process (Node has `BroadcastChannel`, newer ones `navigator.locks`)
  // would otherwise share streams between the clients of unrelated requests.
  if (Channel === undefined || locks === undefined || globals.document === undefined) return null;
  return {
    channel: (name) => new Channel(name),
    locks,
    onSleep(listener) {
      // `freeze`/`resume` (Page Lifecycle) on the document; the back/forward cache on window.
      const freeze = () => listener(true);
      const resume = () => listener(false);
      const hide = (event: { persisted?: boolean }) => {
        if (event.persisted) listener(true);
      };
      const show = (event: { persisted?: boolean }) => {
        if (event.persisted) listener(false);
      };
      globals.document?.addEventListener('freeze', freeze);
      globals.document?.addEventListener('resume', resume);
      globals.addEventListener?.('pagehide', hide);
      globals.addEventListener?.('pageshow', show);
      return () => {
        globals.document?.removeEventListener('freeze', freeze);
        globals.document?.removeEventListener('resume', resume);
        globals.removeEventListener?.('pagehide', hide);
        globals.removeEventListener?.('pageshow', show);
      };
    },
  };
}
