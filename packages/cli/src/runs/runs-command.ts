import { createMultiplexedRunlightClient, type RunState } from '@runlight/client';
import type { CommandOptions } from '../args';
import { EXIT_CODES } from '../exit-codes';
import { clientOptions } from '../output/client-options';
import { ContactWatch } from '../output/contact-watch';
import type { CliIo } from '../output/io';
import { jsonLine } from '../output/neutralize';
import { activityColour, styleFor } from '../output/style';
import { unreadable, unreadableText } from '../output/unreadable';
import { followRun } from '../tail/follow-run';
import { PhaseTracker } from '../tail/phase-tracker';
import { renderTailLine } from '../tail/render-tail';
import type { TailRecord } from '../tail/tail-records';
import { type RunRow, renderTable, runRow } from './run-row';

type End = 'completed' | 'failed' | 'cancelled' | 'unreadable';

/**
 * `runlight runs <baseUrl> <runId…>`: every run over ONE multiplexed event stream
 * (`createMultiplexedRunlightClient`). On a TTY a table redrawn in place, its times ticking;
 * otherwise (and with `--json`) `tail`'s records, each with its `runId`, as they happen. Ends
 * when every run ended: 4 when any could not be read, else 1 when any failed, else 2 when any
 * was cancelled, else 0.
 */
export function runsCommand(options: CommandOptions, io: CliIo): Promise<number> {
  const client = createMultiplexedRunlightClient(clientOptions(options, io));
  const style = styleFor(io.stdout, io, options.color && !options.json);
  const table = !options.json && io.stdout.isTTY === true;
  const runIds = [...new Set(options.runIds)];
  const ends = new Map<string, End>();
  let drawnLines = 0;
  /** `--wait` per run: the multiplexed stream may answer for one run and not for another. */
  const contacts = new Map<string, ContactWatch>();

  const emit = (record: TailRecord) => {
    if (options.json) io.stdout.write(`${jsonLine(record)}\n`);
    else if (!table) {
      const line = renderTailLine(record, style);
      if (line === null) return;
      if (record.type === 'error') io.stderr.write(`${line}\n`);
      else io.stdout.write(`${record.runId}  ${line}\n`);
    }
  };
  const rows = (): RunRow[] =>
    runIds.map((runId) => {
      const end = ends.get(runId);
      if (end === 'unreadable') {
        const state = client.run(runId).getState();
        const failure = unreadable(
          state,
          contacts.get(runId)?.outOfContactMs() ?? 0,
          options.waitMs,
        );
        const text = unreadableText(failure ?? 'unavailable', state);
        return { runId, activity: 'unreadable', text, elapsedMs: null };
      }
      return runRow(client.run(runId).getState(), { recovers: options.recovers, now: Date.now() });
    });
  const draw = () => {
    if (!table) return;
    const lines = renderTable(rows(), (row, text) =>
      style.paint(row.activity === 'unreadable' ? 'red' : activityColour(row.activity), text),
    );
    const up = drawnLines > 0 ? `\x1b[${drawnLines}A\r\x1b[J` : '';
    io.stdout.write(`${up}${lines.join('\n')}\n`);
    drawnLines = lines.length;
  };

  return new Promise<number>((resolve) => {
    const stops: Array<() => void> = [];
    let done = false;
    const ticker = table ? setInterval(draw, 250) : undefined;
    for (const runId of runIds) {
      contacts.set(
        runId,
        new ContactWatch(options.waitMs, () => check(runId, client.run(runId).getState())),
      );
    }
    const finish = (code: number) => {
      if (done) return;
      done = true;
      for (const stop of stops) stop();
      clearInterval(ticker);
      for (const contact of contacts.values()) contact.stop();
      io.signal?.removeEventListener('abort', interrupt);
      for (const runId of runIds) client.run(runId).disconnect();
      draw();
      resolve(code);
    };
    const interrupt = () => finish(EXIT_CODES.interrupted);
    const settle = () => {
      if (ends.size < runIds.length) return;
      const all = [...ends.values()];
      const code = all.includes('unreadable')
        ? EXIT_CODES.unreadable
        : all.includes('failed')
          ? EXIT_CODES.failed
          : all.includes('cancelled')
            ? EXIT_CODES.cancelled
            : EXIT_CODES.completed;
      if (options.json) {
        const runs = Object.fromEntries(runIds.map((runId) => [runId, ends.get(runId)]));
        io.stdout.write(`${jsonLine({ type: 'summary', runs, exitCode: code })}\n`);
      }
      finish(code);
    };
    const check = (runId: string, state: RunState) => {
      if (done || ends.has(runId)) return;
      const contact = contacts.get(runId)!;
      const failure = unreadable(state, contact.outOfContactMs(), options.waitMs);
      if (failure !== null) {
        ends.set(runId, 'unreadable');
        contact.stop();
        const exitCode = EXIT_CODES.unreadable;
        const text = unreadableText(failure, state);
        emit({ type: 'error', runId, reason: failure, text, exitCode });
        client.run(runId).disconnect();
      } else {
        const status = state.run?.status;
        if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') return;
        ends.set(runId, status);
      }
      settle();
    };
    if (io.signal?.aborted) return finish(EXIT_CODES.interrupted);
    io.signal?.addEventListener('abort', interrupt, { once: true });
    for (const runId of runIds) {
      const tracker = new PhaseTracker(runId, { recovers: options.recovers });
      stops.push(
        followRun(client.run(runId), (steps, committed) => {
          if (done) return;
          const contact = contacts.get(runId)!;
          if (!ends.has(runId)) contact.observe(committed);
          if (!ends.has(runId)) {
            const outOfContact = contact.lost;
            for (const step of steps) {
              const records =
                step.type === 'event'
                  ? tracker.observeEvent(step.event)
                  : tracker.observe(step.state, { outOfContact });
              for (const record of records) emit(record);
            }
          }
          check(runId, committed);
        }),
      );
    }
    draw();
  });
}
