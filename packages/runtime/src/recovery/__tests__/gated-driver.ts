import type { AgentRuntimeDriver } from '../../store/driver/driver';
import { type DriverRunEvent, wholeStoredEvent } from '../../store/log/packed-event';

/** One call a process makes to its driver: the method and its arguments. */
export interface DriverCall {
  method: keyof AgentRuntimeDriver;
  args: unknown[];
}

/**
 * `driver` with every call first awaiting `before(call)`: the test decides when (and whether)
 * the call reaches the storage — a gate it opens later, something it does first, or never (a
 * killed process). No sleeps: the interleaving is the test's, call by call.
 */
export function gatedDriver(
  driver: AgentRuntimeDriver,
  before: (call: DriverCall) => void | Promise<void>,
): AgentRuntimeDriver {
  const gated = {} as Record<string, unknown>;
  for (const method of Object.keys(driver) as (keyof AgentRuntimeDriver)[]) {
    const call = driver[method];
    if (typeof call !== 'function') continue;
    gated[method] = async (...args: unknown[]) => {
      await before({ method, args });
      return (call as (...a: unknown[]) => Promise<unknown>).apply(driver, args);
    };
  }
  return gated as unknown as AgentRuntimeDriver;
}

/** The `run-status` changes a compare-and-set call writes (`lease-released`, …). */
export function statusChanges(call: DriverCall): string[] {
  if (call.method !== 'compareAndSet') return [];
  const events = (call.args[3] ?? []) as DriverRunEvent[];
  return events.flatMap((stored) => {
    const event = wholeStoredEvent(stored);
    return event.type === 'run-status' ? [event.change] : [];
  });
}

/** A clock that moves forward by 1 ms on every reading (and by `advance`): never two equal times. */
export function steppingClock(start = Date.parse('2026-12-01T00:00:00.000Z')) {
  let at = start;
  return {
    now: () => new Date(++at),
    advance: (ms: number) => {
      at += ms;
    },
  };
}
