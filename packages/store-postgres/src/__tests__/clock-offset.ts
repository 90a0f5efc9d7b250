/**
 * A preload (`node --import`) that sets this process's wall clock `RUNLIGHT_CLOCK_OFFSET_MS`
 * off: `Date.now()` and `new Date()` read the offset time, as on a machine whose clock is wrong.
 * `performance.now()` (monotonic) is left alone, as a wrong wall clock leaves it.
 */
const offsetMs = Number(process.env.RUNLIGHT_CLOCK_OFFSET_MS ?? 0);
const RealDate = Date;

class OffsetDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...(args as [string]));
  }

  static override now(): number {
    return RealDate.now() + offsetMs;
  }
}

globalThis.Date = OffsetDate as DateConstructor;
