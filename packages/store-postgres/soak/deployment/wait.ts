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

/**
 * POSTs `body` as JSON the way a user's page would: a store outage (503) or a failed connection
 * is retried every 500 ms, 20 times at most; resolves with the status that decided (0: none did).
 */
export async function postAsAUserWould(url: string, body: unknown): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await response.body?.cancel();
      // A store outage is a 503 the user may retry; every other answer decides.
      if (response.status !== 503) return response.status;
    } catch {
      // The gateway's connection failed: a browser would retry.
    }
    await sleep(500);
  }
  return 0;
}
