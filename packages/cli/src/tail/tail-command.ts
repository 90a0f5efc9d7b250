import {
  createRunlightClient,
  formatElapsed,
  type RunState,
  selectElapsedMs,
  selectMessage,
} from '@runlight/client';
import type { CommandOptions } from '../args';
import { EXIT_CODES, exitCodeOfRun } from '../exit-codes';
import { clientOptions } from '../output/client-options';
import { ContactWatch } from '../output/contact-watch';
import type { CliIo } from '../output/io';
import { LineWriter } from '../output/line-writer';
import { jsonLine, neutralize } from '../output/neutralize';
import { activityColour, styleFor } from '../output/style';
import { unreadable, unreadableText } from '../output/unreadable';
import { followRun } from './follow-run';
import { PhaseTracker, secondsUntil } from './phase-tracker';
import { renderTailLine } from './render-tail';
import type { TailRecord } from './tail-records';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * `runlight tail <baseUrl> <runId>`: prints each phase change of the run until it ends and
 * resolves with the exit code (`EXIT_CODES`): 0 completed, 1 failed, 2 cancelled, 4 unreadable,
 * 130 interrupted.
 */
export function tailCommand(options: CommandOptions, io: CliIo): Promise<number> {
  const runId = options.runIds[0]!;
  const client = createRunlightClient(clientOptions(options, io));
  const store = client.run(runId);
  const style = styleFor(io.stdout, io, options.color && !options.json);
  const out = new LineWriter(io.stdout, { live: !options.json && !options.text });
  const tracker = new PhaseTracker(runId, { recovers: options.recovers });
  let printedText = '';
  let last: Extract<TailRecord, { type: 'phase' }> | null = null;

  const emit = (record: TailRecord) => {
    if (record.type === 'phase') last = record;
    // Nothing ticks under the line that says the run ended.
    if (record.type === 'phase' && TERMINAL.has(record.activity)) out.footer(null);
    if (options.json) {
      io.stdout.write(`${jsonLine(record)}\n`);
      return;
    }
    const line = renderTailLine(record, style);
    if (line === null) return;
    if (record.type === 'error') io.stderr.write(`${line}\n`);
    else out.line(line);
  };

  /** The answer's text as far as `state` has it; what extends the printed text is written. */
  const streamText = (state: RunState) => {
    const message = selectMessage(state);
    if (message === null) return;
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (text === printedText || !text.startsWith(printedText)) {
      // A takeover may drop the previous owner's unsaved text: say so, then go on from there.
      if (text !== printedText && !printedText.startsWith(text)) {
        emitText('\n[the answer continues from its last checkpoint]\n');
        printedText = '';
        emitText(text);
        printedText = text;
      }
      return;
    }
    emitText(text.slice(printedText.length));
    printedText = text;
  };
  const emitText = (delta: string) => {
    if (options.json) io.stdout.write(`${jsonLine({ type: 'text', runId, delta })}\n`);
    // The model's text is the run's, not ours: shown, never acted on by the terminal.
    else out.raw(options.raw ? delta : neutralize(delta));
  };

  return new Promise<number>((resolve) => {
    let done = false;
    let stop = () => {};
    const ticker = setInterval(() => drawFooter(), 200);
    // `--wait` bounds every read: the first load, and any time the server stops answering.
    const contact = new ContactWatch(options.waitMs, () => check(store.getState()));
    let unreachableSaid = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      stop();
      clearInterval(ticker);
      contact.stop();
      io.signal?.removeEventListener('abort', interrupt);
      store.disconnect();
      out.finish();
      resolve(code);
    };
    const interrupt = () => finish(EXIT_CODES.interrupted);
    const drawFooter = () => {
      const state = store.getState();
      if (last === null || last.at === null || TERMINAL.has(last.activity)) return out.footer(null);
      const time =
        last.retryAt === undefined
          ? formatElapsed(selectElapsedMs(last.at, state))
          : `${secondsUntil(last.retryAt, state.clockOffsetMs, Date.now())} s`;
      out.footer(`${style.paint(activityColour(last.activity), '…')} ${style.paint('dim', time)}`);
    };
    /** Says once when the server cannot be reached (or the CLI gives it up), and when it answers again. */
    const sayContact = (state: RunState, givenUp = false) => {
      const unreachable =
        givenUp ||
        (contact.lost &&
          state.run !== null &&
          (state.connection === 'unreachable' || state.connection === 'offline'));
      if (unreachable === unreachableSaid || (!unreachable && contact.lost)) return;
      unreachableSaid = unreachable;
      const serverNow = new Date(Date.now() + (state.clockOffsetMs ?? 0)).toISOString();
      emit(tracker.connection(unreachable ? 'unreachable' : 'reachable', serverNow));
    };
    const check = (state: RunState) => {
      if (done) return;
      const failure = unreadable(state, contact.outOfContactMs(), options.waitMs);
      if (failure !== null) {
        // Given up on a server that stopped answering: the last known fact stays the line
        // above, and that the server is gone is a line of its own, whichever came first — the
        // client's `unreachable` or `--wait`.
        if (failure === 'unavailable' && state.run !== null) sayContact(state, true);
        const exitCode = EXIT_CODES.unreadable;
        const text = unreadableText(failure, state);
        emit({ type: 'error', runId, reason: failure, text, exitCode });
        finish(exitCode);
        return;
      }
      const status = state.run?.status;
      if (status === 'completed' || status === 'failed' || status === 'cancelled') {
        const durationMs = Math.max(
          0,
          Date.parse(state.run!.updatedAt) - Date.parse(state.run!.createdAt),
        );
        const exitCode = exitCodeOfRun(status);
        if (options.json) emit({ type: 'end', runId, status, durationMs, exitCode });
        finish(exitCode);
      }
    };
    if (io.signal?.aborted) return finish(EXIT_CODES.interrupted);
    io.signal?.addEventListener('abort', interrupt, { once: true });
    stop = followRun(store, (steps, committed) => {
      if (done) return;
      contact.observe(committed);
      const outOfContact = contact.lost;
      for (const step of steps) {
        const records =
          step.type === 'event'
            ? tracker.observeEvent(step.event)
            : tracker.observe(step.state, { outOfContact });
        for (const record of records) {
          // The burst's text belongs before a line that ends the streaming, after one that
          // begins it: only the committed state holds the deltas.
          if (options.text && record.type === 'phase' && record.activity !== 'streaming') {
            streamText(committed);
          }
          emit(record);
        }
      }
      if (options.text) streamText(committed);
      sayContact(committed);
      drawFooter();
      check(committed);
    });
  });
}
