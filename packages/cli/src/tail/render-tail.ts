import { formatElapsed } from '@runlight/client';
import { neutralize } from '../output/neutralize';
import { activityColour, type Style } from '../output/style';
import type { TailRecord } from './tail-records';

/** Width of an ISO timestamp (`2026-01-02T03:04:05.678Z`): the column of a missing one. */
const AT_WIDTH = 24;

/** `+1.2 s`: the time since the run was created, on the server's clock. */
export function sinceStart(ms: number | null): string {
  return (ms === null ? '' : `+${formatElapsed(ms)}`).padStart(12);
}

/**
 * A `tail` record as a terminal line: the original timestamp, the elapsed time since the run
 * began (both from the server's records), the status words. `null` for what has no line (the
 * end: its phase line said it; text: written raw).
 *
 * @example
 * renderTailLine(record, style); // '2026-01-02T03:04:05.678Z      +0.8 s  Waiting for the model'
 */
export function renderTailLine(record: TailRecord, style: Style): string | null {
  switch (record.type) {
    case 'phase': {
      const { line } = record;
      const head = `${style.paint('dim', (line?.at ?? record.at ?? '-').padEnd(AT_WIDTH))}${style.paint('dim', sinceStart(line?.elapsedMs ?? record.elapsedMs))}`;
      // A phase that began before the line above says when, instead of going back in time.
      const began =
        line === undefined
          ? ''
          : style.paint('dim', `${line.resumed ? ' — resumed' : ''} (since ${record.at})`);
      const lines = [
        `${head}  ${style.paint(activityColour(record.activity), record.text)}${began}`,
      ];
      for (const approval of record.approvals ?? []) {
        lines.push(
          // A tool's name and an approval id are the run's: shown, never acted on.
          `${' '.repeat(AT_WIDTH + 14)}${neutralize(approval.toolName)} ${style.paint('dim', `(approval ${neutralize(approval.approvalId)})`)}`,
        );
      }
      return lines.join('\n');
    }
    case 'connection':
    case 'takeover': {
      const head = `${style.paint('dim', record.at.padEnd(AT_WIDTH))}${style.paint('dim', sinceStart(record.elapsedMs))}`;
      return `${head}  ${style.paint('yellow', record.text)}`;
    }
    case 'error':
      return `runlight: ${record.text} (run ${record.runId})`;
    case 'text':
    case 'end':
      return null;
  }
}
