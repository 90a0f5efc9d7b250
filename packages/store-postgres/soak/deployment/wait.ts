const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls every 100 ms until each condition held once (a throw counts as not yet); false past the timeout. */
export async function waitUntil(
  conditions: (() => boolean | Promise<boolean>)[],
  timeoutMs: number,
) {
  const until = Date.now() + Math.max(0, timeoutMs);
  const open = new Set(conditions);
  while (open.size > 0 && Date.now() < until) {
    for (const condition of [...open]) {
      if (
        await Promise.resolve()
          .then(condition)
          .catch(() => false)
      )
        open.delete(condition);
    }
    if (open.size > 0) await sleep(100);
  }
  return open.size === 0;
}

/** A promise and the functions that settle it. */
export function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}
