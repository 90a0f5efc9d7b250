import type { Fault } from './faults';

/** What one wave measured: one fault while its runs streamed. */
export interface WaveFigures {
  fault: Fault;
  notes: string;
  runs: number;
  /** From the fault clearing to the last run's end. */
  recoveryMs: number;
  /** The longest wait from a graceful hand-off (`lease-handed-off`) to the next takeover. */
  handOffMs: number | null;
  /** The longest wait from a cancel sent to a gateway to the run's `cancelled` (before the fault). */
  cancelMs: number | null;
  /** After a Redis outage: from Redis back to the last process saying its bus is back. */
  busBackMs: number | null;
  violations: number;
}

const ms = (value: number | null) => (value === null ? '–' : `${value} ms`);

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * The soak's report: a row per wave, then — when a fault ran more than once (`--rounds`) — its
 * recovery and cancel latencies across rounds (min / median / max), then the total.
 */
export function printReport(
  figures: readonly WaveFigures[],
  violations: readonly string[],
  elapsedMs: number,
): void {
  console.log(
    '\nfault                 runs  last end after clearing  hand-off → takeover  cancel → cancelled  bus back  violations',
  );
  for (const row of figures) {
    console.log(
      `${row.fault.padEnd(20)} ${String(row.runs).padStart(5)}  ${ms(row.recoveryMs).padStart(23)}  ${ms(row.handOffMs).padStart(19)}  ${ms(row.cancelMs).padStart(18)}  ${ms(row.busBackMs).padStart(8)}  ${String(row.violations).padStart(10)}`,
    );
  }
  const byFault = new Map<Fault, WaveFigures[]>();
  for (const row of figures) byFault.set(row.fault, [...(byFault.get(row.fault) ?? []), row]);
  if ([...byFault.values()].some((rows) => rows.length > 1)) {
    console.log(
      '\nper fault (min / median / max)   rounds  last end after clearing        cancel → cancelled       violations',
    );
    for (const [fault, rows] of byFault) {
      const spread = (values: number[]) => {
        if (values.length === 0) return '–';
        const sorted = values.sort((a, b) => a - b);
        return `${sorted[0]} / ${quantile(sorted, 0.5)} / ${sorted.at(-1)} ms`;
      };
      const cancels = rows.flatMap((row) => (row.cancelMs === null ? [] : [row.cancelMs]));
      console.log(
        `${fault.padEnd(32)} ${String(rows.length).padStart(6)}  ${spread(rows.map((row) => row.recoveryMs)).padStart(23)}  ${spread(cancels).padStart(23)}  ${String(rows.reduce((sum, row) => sum + row.violations, 0)).padStart(15)}`,
      );
    }
  }
  console.log(
    `\n${figures.reduce((sum, row) => sum + row.runs, 0)} runs, ${figures.length} faults in ${(elapsedMs / 1000).toFixed(1)} s: ${violations.length} violations`,
  );
  for (const line of violations) console.log(`  ✗ ${line}`);
}
