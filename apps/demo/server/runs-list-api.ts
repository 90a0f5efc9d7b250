import {
  type AgentRuntime,
  type AgentRuntimeStore,
  createAgentRuntime,
  type RunEventBus,
  type RuntimeLogEntry,
  type WebHandler,
} from '@runlight/runtime';
import { scriptedModel } from '@runlight/runtime/testing';
import { demoError, demoJson } from './json-response';
import { REAL_MODEL_HOW_TO, type RealModelConfig, realModel, realModelConfig } from './real-model';

export interface RunsListApiOptions {
  store: AgentRuntimeStore;
  events: RunEventBus;
  log: (entry: RuntimeLogEntry) => void;
  /** The real provider; default from the environment (`realModelConfig`). */
  realModel?: RealModelConfig | null;
}

interface ListedRun {
  runId: string;
  label: string;
  createdAt: string;
}

const MAX_LISTED = 200;
const MAX_BATCH = 50;

/** A run of the batch: a varied wait for the first token, then a long answer; some fail. */
function batchScript(index: number) {
  const words = Array.from({ length: 60 + (index % 5) * 20 }, (_, word) => `w${word} `).join('');
  const firstTokenMs = 800 + ((index * 733) % 5000);
  if (index % 7 === 6) {
    return scriptedModel([
      { firstTokenMs, tokenMs: 80, text: words, error: { at: 12, message: 'upstream reset' } },
    ]);
  }
  return scriptedModel([{ firstTokenMs, tokenMs: 80 + (index % 3) * 20, text: words }]);
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
      runs.forEach((run, index) => {
        runtime.startRun({
          runId: run.runId,
          model: batchScript(index),
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
