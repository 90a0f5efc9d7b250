/** How many policy calls one request of many runs has in flight at once. */
export const DEFAULT_POLICY_CONCURRENCY = 32;

/**
 * `map` over `items` with at most `limit` calls in flight, the results in `items`' order. The
 * many-runs routes ask the policy this way: one at a time, 20 runs under a 2 s policy took
 * 40 s to the first byte; unbounded, 100 runs are 100 simultaneous calls to a session store.
 *
 * @example
 * const verdicts = await mapBounded(runIds, 32, (runId) => refusal(request, runId));
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  map: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]!, index);
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
