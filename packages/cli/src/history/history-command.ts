import {
  buildRunTimeline,
  createRunlightClient,
  defaultRunStatusLabels,
  formatElapsed,
  nextHistoryAfter,
  runHistoryOf,
  selectRunStatus,
  withRetryWait,
} from '@runlight/client';
import type { CommandOptions } from '../args';
import { EXIT_CODES } from '../exit-codes';
import { clientOptions } from '../output/client-options';
import { ContactWatch } from '../output/contact-watch';
import type { CliIo } from '../output/io';
import { jsonLine } from '../output/neutralize';
import { activityColour, styleFor } from '../output/style';
import { ANSWER_GRACE_MS, unreadable, unreadableText } from '../output/unreadable';
import { statusWords } from '../tail/phase-tracker';
import { renderWaterfall, type WaterfallRow, waterfallRows } from './waterfall';

const PAINT = { wait: 'yellow', stream: 'cyan', gap: 'dim', dim: 'dim' } as const;

/**
 * `runlight history <baseUrl> <runId>`: reads the run and its operation history
 * (`runHistoryOf`), prints the waterfall once — `buildRunTimeline` worded as `RunTimeline` words
 * it — and exits 0, or 4 when the run cannot be read. A run in flight is drawn up to now.
 */
export function historyCommand(options: CommandOptions, io: CliIo): Promise<number> {
  const runId = options.runIds[0]!;
  const client = createRunlightClient(clientOptions(options, io));
  const store = client.run(runId);
  const history = runHistoryOf(client, runId);
  const style = styleFor(io.stdout, io, options.color && !options.json);

  const print = () => {
    const state = store.getState();
    const run = state.run!;
    const view = selectRunStatus(state);
    const { text } = statusWords(view.activity, {
      clockOffsetMs: state.clockOffsetMs,
      recovers: options.recovers,
      now: Date.now(),
    });
    const model = withRetryWait(buildRunTimeline(history.getState().operations), view.activity);
    const origin = model.origin === null ? null : Date.parse(model.origin);
    const serverNow = Date.now() + (state.clockOffsetMs ?? 0);
    const nowMs = origin === null ? 0 : Math.max(0, serverNow - origin);
    const rows = waterfallRows(model, view.activity, { recovers: options.recovers, nowMs });
    const untilMs = view.until === undefined ? serverNow : Date.parse(view.until);
    const totalMs = Math.max(0, untilMs - Date.parse(run.createdAt));
    if (options.json) {
      io.stdout.write(
        `${jsonLine({
          type: 'history',
          runId,
          activity: view.activity.kind,
          text,
          createdAt: run.createdAt,
          origin: model.origin,
          durationMs: totalMs,
          rows,
        } satisfies HistoryRecord)}\n`,
      );
      return;
    }
    const heading = `${runId}  ${style.paint(activityColour(view.activity.kind), text)}  ${style.paint('dim', `${formatElapsed(totalMs)} since ${run.createdAt}`)}`;
    const lines = renderWaterfall(rows, {
      width: io.stdout.columns ?? 100,
      paint: (part, value) => style.paint(PAINT[part], value),
    });
    io.stdout.write(`${heading}\n${lines.join('\n')}\n`);
  };

  return new Promise<number>((resolve) => {
    let done = false;
    let offHistory = () => {};
    let offStore = () => {};
    const finish = (code: number) => {
      if (done) return;
      done = true;
      offHistory();
      offStore();
      contact.stop();
      clearTimeout(historyTimer);
      io.signal?.removeEventListener('abort', interrupt);
      store.disconnect();
      resolve(code);
    };
    const interrupt = () => finish(EXIT_CODES.interrupted);
    const check = () => {
      if (done) return;
      const state = store.getState();
      contact.observe(state);
      watchHistory();
      const historyState = history.getState();
      const failure =
        unreadable(state, contact.outOfContactMs(), options.waitMs) ??
        (stalledHistory && historyState.status !== 'ready' ? 'unavailable' : null);
      if (failure !== null || historyState.status === 'error') {
        const reason =
          failure ??
          (historyState.error?.kind === 'unauthorized' ? 'access-refused' : 'unavailable');
        const words =
          failure === null && reason === 'unavailable'
            ? `${defaultRunStatusLabels.error} (history: ${historyState.error?.kind})`
            : unreadableText(reason, state);
        if (options.json) {
          const record = { type: 'error', runId, reason, text: words, exitCode: 4 };
          io.stdout.write(`${jsonLine(record)}\n`);
        } else io.stderr.write(`runlight: ${words} (run ${runId})\n`);
        finish(EXIT_CODES.unreadable);
        return;
      }
      if (state.run === null || historyState.status !== 'ready') return;
      if (nextHistoryAfter(historyState, state.revision) !== null) return;
      print();
      finish(EXIT_CODES.completed);
    };
    // `--wait` bounds every read: the run's snapshot, and each history page (no page for that
    // long, plus the grace a request gets — a server that accepts and never answers — reads as
    // unavailable).
    const contact = new ContactWatch(options.waitMs, check);
    let stalledHistory = false;
    let historyTimer: ReturnType<typeof setTimeout> | undefined;
    let lastHistory: unknown = null;
    const watchHistory = () => {
      const current = history.getState();
      if (current === lastHistory) return;
      lastHistory = current;
      clearTimeout(historyTimer);
      historyTimer = setTimeout(() => {
        stalledHistory = true;
        check();
      }, options.waitMs + ANSWER_GRACE_MS);
    };
    if (io.signal?.aborted) return finish(EXIT_CODES.interrupted);
    io.signal?.addEventListener('abort', interrupt, { once: true });
    offHistory = history.subscribe(check);
    offStore = store.subscribe(check);
    check();
  });
}

/** `history --json`: the run's status and its waterfall rows. */
export interface HistoryRecord {
  readonly type: 'history';
  readonly runId: string;
  readonly activity: string;
  readonly text: string;
  readonly createdAt: string;
  readonly origin: string | null;
  readonly durationMs: number;
  readonly rows: readonly WaterfallRow[];
}
