import type { RunLogState } from '@runlight/client';
import { formatBytes, formatClock } from './run-facts';

/** The most recent entries drawn; the rest stay in the log (and in "Copy run as JSON"). */
const SHOWN = 300;

/** The durable log as the client received it: one row per snapshot or event, deltas counted. */
export function EventLog({ logState }: { logState: RunLogState }) {
  const { entries, deltas, dropped, base } = logState;
  const shown = entries.slice(-SHOWN);
  let highest = 0;
  const duplicates = new Set<number>();
  entries.forEach((entry, index) => {
    if (entry.kind === 'event' && entry.revision <= highest) duplicates.add(index);
    highest = Math.max(highest, entry.revision);
  });
  const offset = entries.length - shown.length;
  return (
    <>
      <p data-testid="runlight-devtools-deltas" data-deltas={deltas}>
        {deltas} live {deltas === 1 ? 'delta' : 'deltas'} merged (counted, not kept).
        {dropped > 0 ? ` ${dropped} older entries folded into revision ${base.revision}.` : ''}
        {base.run !== null && dropped === 0 ? ` Recording began at revision ${base.revision}.` : ''}
      </p>
      {/* A scrolling box is reached by keyboard (axe: scrollable-region-focusable). */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls. */}
      <section className="rl-log" tabIndex={0} aria-label="Durable event log">
        <table data-testid="runlight-devtools-log">
          <caption>
            {entries.length} {entries.length === 1 ? 'entry' : 'entries'}
            {offset > 0 ? ` (the last ${shown.length} shown)` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Revision</th>
              <th scope="col">Type</th>
              <th scope="col">Size</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((entry, index) => {
              const duplicate = duplicates.has(index + offset);
              const type = entry.kind === 'snapshot' ? 'snapshot' : entry.type;
              return (
                <tr
                  // biome-ignore lint/suspicious/noArrayIndexKey: the log only grows at its end.
                  key={index + offset}
                  data-revision={entry.revision}
                  data-type={type}
                  data-duplicate={duplicate ? '' : undefined}
                >
                  <td>{entry.revision}</td>
                  <td>
                    {type}
                    {duplicate ? ' (duplicate)' : ''}
                  </td>
                  <td>{formatBytes(entry.bytes)}</td>
                  <td>{formatClock(entry.receivedAt)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
    </>
  );
}
