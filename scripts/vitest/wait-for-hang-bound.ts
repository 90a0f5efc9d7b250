import { vi } from 'vitest';

/**
 * `vi.waitFor` waits on a condition, but its default timeout (1 s) made a test decide by the
 * machine's speed: a listener count a quiet machine reaches in 50 ms took over a second under
 * CI's load (three lanes on two cores). Every `vi.waitFor` without a timeout of its own gets a
 * 30 s bound instead — it returns as soon as the condition holds, so a passing test is no
 * slower; the bound only ends a hang. One that sets its own timeout keeps it.
 */
const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback: Parameters<typeof waitFor>[0], options?: Parameters<typeof waitFor>[1]) =>
  waitFor(
    callback,
    typeof options === 'number' ? { timeout: options } : { timeout: 30_000, ...options },
  )) as typeof vi.waitFor;
