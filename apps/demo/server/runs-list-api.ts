import {
  type AgentRuntime,
  type AgentRuntimeStore,
  createAgentRuntime,
  type RunEventBus,
  type RuntimeLogEntry,
  type WebHandler,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import type { DemoGates } from './demo-gates';
import { gatedModel } from './demo-models';
import { demoError, demoJson } from './json-response';
import { REAL_MODEL_HOW_TO, type RealModelConfig, realModel, realModelConfig } from './real-model';

export interface RunsListApiOptions {
  store: AgentRuntimeStore;
  events: RunEventBus;
  log: (entry: RuntimeLogEntry) => void;
  /** The real provider; default from the environment (`realModelConfig`). */
  realModel?: RealModelConfig | null;
  /**
   * Tests: a batch started after `gates.hold('runs-batch', 'batch')` stays live until each run
   * is released (`gates.release(runId, 'batch')`): every fourth run before its first token,
   * the others before their last word (or their failure).
   */
  gates?: DemoGates;
}

interface ListedRun {
  runId: string;
  label: string;
  createdAt: string;
}

const MAX_LISTED = 200;
const MAX_BATCH = 50;

/** A run of the batch: a varied wait for the first token, then a long answer; some fail. */
function batchScript(index: number, hold: (signal?: AbortSignal) => Promise<void> | undefined) {
  const count = 60 + (index % 5) * 20;
  const words = Array.from({ length: count }, (_, word) => `w${word} `).join('');
  const firstTokenMs = 800 + ((index * 733) % 5000);
  const fails = index % 7 === 6;
  const model = fails
    ? scriptedModel([
        { firstTokenMs, tokenMs: 80, text: words, error: { at: 12, message: 'upstream reset' } },
      ])
    : scriptedModel([{ firstTokenMs, tokenMs: 80 + (index % 3) * 20, text: words }]);
  // Content parts: `text-start`, a delta per word, then `text-end` and `finish` (or `error`
  // after 12 words). A held run stops before its first part, or before its last word's end.
  const heldAt = index % 4 === 3 ? 0 : fails ? 12 : count + 1;
  return gatedModel(model, (call, part, signal) =>
    call === 0 && part === heldAt ? hold(signal) : undefined,
  );
}

/**
 * The playground's routes for many runs on one page, under `/api/demo`:
 *
 * - `GET  /api/demo/runs-list` → `{ runs: [{ runId, label, createdAt }] }` (newest first)
 * - `POST /api/demo/runs-list` `{ count? }` → `201 { runIds }`: `count` (default 20, at most 50)
 *   scripted runs, with varied waits, answers and a few provider failures
 * - `GET  /api/demo/real-model` → `{ configured, label?, howTo? }`
 * - `POST /api/demo/real-model` `{ prompt? }` → `201 { runId }` through the real provider, or
 *   `409 { error: { code: 'not_configured', message: how to enable it } }`
 */
export function runsListApi(options: RunsListApiOptions): WebHandler & { close(): void } {
  const config = options.realModel === undefined ? realModelConfig() : options.realModel;
  const runtime: AgentRuntime = createAgentRuntime({
    store: options.store,
    events: options.events,
    owner: 'worker-list',
    onLog: options.log,
    checkpointEveryEvents: 16,
  });
  const listed: ListedRun[] = [];
  const started = new Set<string>();
  let sequence = 0;

  const list = (label: string): ListedRun => {
    sequence += 1;
    const run = {
      runId: `list-${Date.now().toString(36)}-${sequence}`,
      label,
      createdAt: new Date().toISOString(),
    };
    listed.unshift(run);
    listed.length = Math.min(listed.length, MAX_LISTED);
    started.add(run.runId);
    return run;
  };

  const handler = async (request: Request): Promise<Response | null> => {
    const { pathname } = new URL(request.url);
    if (pathname === '/api/demo/runs-list') {
      if (request.method === 'GET') return demoJson({ runs: listed });
      if (request.method !== 'POST') return demoError(405, 'method_not_allowed', 'GET or POST');
      const body = (await request.json().catch(() => ({}))) as { count?: unknown };
      const count = body.count === undefined ? 20 : Number(body.count);
      if (!Number.isInteger(count) || count < 1 || count > MAX_BATCH) {
        return demoError(400, 'bad_request', `count must be an integer from 1 to ${MAX_BATCH}`);
      }
      const runs = Array.from({ length: count }, (_, index) => list(`Scripted #${index + 1}`));
      await Promise.all(runs.map((run) => options.store.createRun({ runId: run.runId })));
      options.gates?.claim('runs-batch', ...runs.map((run) => run.runId));
      runs.forEach((run, index) => {
        runtime.startRun({
          runId: run.runId,
          model: batchScript(index, (signal) => options.gates?.wait(run.runId, 'batch', signal)),
          messages: [{ role: 'user', content: `Run ${index + 1}: write a long answer` }],
          maxRetries: 0,
        });
      });
      return demoJson({ runIds: runs.map((run) => run.runId) }, 201);
    }
    if (pathname === '/api/demo/real-model') {
      if (request.method === 'GET') {
        return demoJson(
          config
            ? { configured: true, label: config.label }
            : { configured: false, howTo: REAL_MODEL_HOW_TO },
        );
      }
      if (request.method !== 'POST') return demoError(405, 'method_not_allowed', 'GET or POST');
      if (config === null) {
        const error = { code: 'not_configured', message: REAL_MODEL_HOW_TO };
        return Response.json({ error }, { status: 409, headers: { 'Cache-Control': 'no-store' } });
      }
      const body = (await request.json().catch(() => ({}))) as { prompt?: unknown };
      const prompt =
        typeof body.prompt === 'string' && body.prompt.trim() !== ''
          ? body.prompt.slice(0, 2000)
          : 'In three sentences: why should an agent run be durable?';
      const run = list(`Real model: ${config.label}`);
      await options.store.createRun({ runId: run.runId });
      runtime.startRun({
        runId: run.runId,
        model: realModel(config),
        messages: [{ role: 'user', content: prompt }],
      });
      return demoJson({ runId: run.runId }, 201);
    }
    return null;
  };
  return Object.assign(handler, {
    close() {
      for (const runId of started) runtime.cancelRun(runId);
    },
  });
}
