import { isTerminalStatus, pendingApprovals } from '@runlight/protocol';
import { RunNotFoundError, readJsonBody, type WebHandler } from '@runlight/runtime';
import type { z } from 'zod';
import type { DemoRuntime } from './demo-runtime';
import { demoError, demoJson } from './json-response';
import {
  ApprovalBodySchema,
  EmptyBodySchema,
  RunIdSchema,
  SettingsBodySchema,
  StartScenarioBodySchema,
} from './request-bodies';
import { snapshotAtRevision } from './snapshot-at-revision';

export interface DemoApiOptions {
  demo: DemoRuntime;
  /** Closes the live event streams of a run on the server side; returns how many. */
  dropConnections: (runId: string) => number;
}

const MAX_BODY_BYTES = 16 * 1024;

/**
 * Reads and validates a JSON body: `application/json` only (415), at most 16 KiB counted in
 * bytes while reading (413, the rest is never read), valid JSON matching `schema` (400).
 */
async function readBody<T>(request: Request, schema: z.ZodType<T>): Promise<T | Response> {
  const body = await readJsonBody(request, MAX_BODY_BYTES);
  if (!body.ok) {
    const { error } = (await body.response.json()) as { error: { code: string; message: string } };
    const code =
      error.code === 'unsupported_media_type' || error.code === 'body_too_large'
        ? error.code
        : 'bad_request';
    return demoError(body.response.status, code, error.message);
  }
  const parsed = schema.safeParse(body.value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`,
  );
  return demoError(400, 'bad_request', issues.join('; '));
}

/**
 * The playground's own routes under `/api/demo` (the runs' snapshots and events are the
 * runtime's handlers under `/api/runs`):
 *
 * - `GET  /api/demo/settings`, `POST /api/demo/settings` `{ latencyMs?, tokenMs? }`
 * - `POST /api/demo/runs` `{ scenario }` → `201 { runId }`
 * - `GET  /api/demo/runs/:id` → `{ runId, scenario, notes }`
 * - `POST /api/demo/runs/:id/approvals` `{ approvalId, approved, reason? }` → `202`
 * - `POST /api/demo/runs/:id/cancel` → `202`
 * - `POST /api/demo/runs/:id/drop` → `{ dropped }` (server-side close of its SSE streams)
 * - `GET  /api/demo/runs/:id/revisions/:n` → the public snapshot at revision n, folded from the
 *   store's log (`snapshotAtRevision`: what a fresh client loads at n; the devtools test)
 *
 * Every POST body is validated with zod; a bad one gets `400` and a JSON error.
 *
 * @example
 * const route = demoApi({ demo, dropConnections: (runId) => connections.drop(runId) });
 * await route(new Request('http://x/api/demo/runs', { method: 'POST', body: '{"scenario":"quick-answer"}' }));
 */
export function demoApi(options: DemoApiOptions): WebHandler {
  const { demo } = options;

  return async (request) => {
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith('/api/demo/')) return null;
    const segments = pathname.slice('/api/demo/'.length).split('/');
    const method = request.method;

    if (segments.length === 1 && segments[0] === 'settings') {
      if (method === 'GET') return demoJson(demo.settings());
      if (method !== 'POST') return demoError(405, 'method_not_allowed', `${method} not allowed`);
      const body = await readBody(request, SettingsBodySchema);
      if (body instanceof Response) return body;
      return demoJson(demo.updateSettings(body));
    }

    if (segments[0] !== 'runs') return null;
    if (segments.length === 1) {
      if (method !== 'POST') return demoError(405, 'method_not_allowed', `${method} not allowed`);
      const body = await readBody(request, StartScenarioBodySchema);
      if (body instanceof Response) return body;
      return demoJson({ runId: await demo.startScenario(body.scenario) }, 201);
    }

    const runId = RunIdSchema.safeParse(safeDecode(segments[1] ?? ''));
    if (!runId.success) return demoError(400, 'bad_request', 'Run id is invalid');
    const id = runId.data;
    const action = segments[2];

    if (segments.length === 2) {
      if (method !== 'GET') return demoError(405, 'method_not_allowed', `${method} not allowed`);
      if (demo.scenarioOf(id) === undefined) {
        return demoError(404, 'run_not_found', `Run ${id} was not started here`);
      }
      return demoJson({ runId: id, scenario: demo.scenarioOf(id), notes: demo.notesOf(id) });
    }
    if (segments.length === 4 && action === 'revisions') {
      if (method !== 'GET') return demoError(405, 'method_not_allowed', `${method} not allowed`);
      const revision = Number(segments[3]);
      if (!Number.isSafeInteger(revision) || revision < 1) {
        return demoError(400, 'bad_request', 'Revision must be a positive integer');
      }
      const snapshot = await snapshotAtRevision(demo.store, id, revision);
      if (snapshot === null) {
        return demoError(404, 'run_not_found', `Run ${id} has no revision ${revision}`);
      }
      return demoJson(snapshot);
    }
    if (segments.length !== 3) return null;
    if (method !== 'POST') return demoError(405, 'method_not_allowed', `${method} not allowed`);

    switch (action) {
      case 'approvals': {
        const body = await readBody(request, ApprovalBodySchema);
        if (body instanceof Response) return body;
        return answerApproval(demo, id, body);
      }
      case 'cancel': {
        const body = await readBody(request, EmptyBodySchema);
        if (body instanceof Response) return body;
        const executor = demo.executorOf(id);
        if (!executor) return demoError(404, 'run_not_found', `Run ${id} was not started here`);
        executor.cancelRun(id);
        return demoJson({ runId: id }, 202);
      }
      case 'drop': {
        const body = await readBody(request, EmptyBodySchema);
        if (body instanceof Response) return body;
        return demoJson({ runId: id, dropped: options.dropConnections(id) });
      }
      default:
        return null;
    }
  };
}

async function answerApproval(
  demo: DemoRuntime,
  runId: string,
  answer: z.infer<typeof ApprovalBodySchema>,
): Promise<Response> {
  const executor = demo.executorOf(runId);
  if (!executor) return demoError(404, 'run_not_found', `Run ${runId} was not started here`);
  let pending = false;
  try {
    const snapshot = await demo.store.getSnapshot(runId);
    pending =
      !isTerminalStatus(snapshot.run.status) &&
      pendingApprovals(snapshot.assistant?.message).some(
        (request) => request.approvalId === answer.approvalId,
      );
  } catch (error) {
    if (RunNotFoundError.isInstance(error)) {
      return demoError(404, 'run_not_found', `Run ${runId} does not exist`);
    }
    throw error;
  }
  if (!pending) {
    return demoError(
      409,
      'not_awaiting_approval',
      `Run ${runId} awaits no approval ${answer.approvalId}`,
    );
  }
  const { reason, ...rest } = answer;
  const approvals = [reason === undefined ? rest : answer];
  // The approval request is visible a moment before the paused execution has fully returned;
  // a resume refused for that reason is retried briefly.
  for (let attempt = 0; attempt < 30; attempt++) {
    const handle = executor.resumeRun({ runId, approvals });
    const early = await Promise.race([
      handle.done.then(
        () => null,
        (error: unknown) => error,
      ),
      delay(50).then(() => null),
    ]);
    if (!(early instanceof Error && /already executing|not paused/.test(early.message))) {
      return demoJson({ runId }, 202);
    }
    await delay(100);
  }
  return demoError(409, 'not_awaiting_approval', `Run ${runId} could not be resumed`);
}

/** A path segment decoded, or `''` (an invalid id) when it is not valid percent-encoding. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
