/**
 * The database's clock as seen from one process, in milliseconds since the epoch:
 * `clock_timestamp()` in the statements' own answers, carried forward between them by the
 * process's monotonic clock (`performance.now()`) — never by its wall clock, which may be
 * minutes wrong or stepped by NTP. What the store takes lease times and expiry decisions from.
 */
export const CLOCK_READING_SQL = '(extract(epoch FROM clock_timestamp()) * 1000)::float8';

/** A reading older than this is refreshed with a statement of its own before it is used. */
const FRESH_MS = 10_000;
/** A reading this old is replaced by any later one (the server's own clock may be stepped). */
const REPLACE_MS = 30_000;

export interface DatabaseClock {
  /** The database's time now, as an ISO timestamp (`AgentRuntimeDriver.now`). */
  now(): Promise<string>;
  /** A reading (`CLOCK_READING_SQL`) a statement returned, taken as its answer arrived. */
  observe(readingMs: unknown): void;
}

/**
 * A reading is taken somewhere between sending a statement and its answer, so carried forward
 * from the answer's arrival it is never ahead of the database and behind by at most that trip:
 * of several readings the one carried furthest is the closest, and it is kept. Being behind
 * errs on the safe side — a takeover decided a few milliseconds late, never early.
 *
 * @example
 * const clock = createDatabaseClock(async () => (await sql.query({ text: `SELECT ${CLOCK_READING_SQL} AS ms` }))[0]?.ms);
 * const at = await clock.now();
 */
export function createDatabaseClock(read: () => Promise<unknown>): DatabaseClock {
  let anchor: { db: number; at: number } | null = null;
  let reading: Promise<void> | null = null;
  const carried = (from: { db: number; at: number }) => from.db + (performance.now() - from.at);

  function observe(readingMs: unknown) {
    const db = typeof readingMs === 'string' ? Number(readingMs) : readingMs;
    if (typeof db !== 'number' || !Number.isFinite(db)) return;
    const at = performance.now();
    if (anchor === null || db >= carried(anchor) || at - anchor.at > REPLACE_MS) {
      anchor = { db, at };
    }
  }

  return {
    observe,
    async now() {
      if (anchor === null || performance.now() - anchor.at > FRESH_MS) {
        // One statement for every caller waiting on a stale reading.
        reading ??= read()
          .then(observe)
          .finally(() => {
            reading = null;
          });
        await reading;
      }
      if (anchor === null) throw new Error('The database answered no clock reading');
      return new Date(Math.floor(carried(anchor))).toISOString();
    },
  };
}
