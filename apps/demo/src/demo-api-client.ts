import type { DemoSettings, ScenarioId } from './scenario-catalog';

/** A server-side note on a run (e.g. a worker's local end after it lost its lease). */
export interface DemoNote {
  at: string;
  text: string;
}

/** A `/api/demo` call the server answered with an error; `status` is its HTTP status. */
export class DemoApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'DemoApiError';
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/api/demo${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const json = (await response.json().catch(() => null)) as
    | (T & { error?: undefined })
    | { error: { code: string; message: string } }
    | null;
  if (!response.ok || json === null || json.error !== undefined) {
    const message = json?.error?.message ?? `HTTP ${response.status}`;
    throw new DemoApiError(`${method} /api/demo${path}: ${message}`, response.status);
  }
  return json as T;
}

/** The playground's own API (`/api/demo/*`): scenarios, approvals, cancel, drop, settings. */
export const demoApi = {
  startScenario: (scenario: ScenarioId) => call<{ runId: string }>('POST', '/runs', { scenario }),
  answerApproval: (runId: string, approvalId: string, approved: boolean) =>
    call<{ runId: string }>('POST', `/runs/${encodeURIComponent(runId)}/approvals`, {
      approvalId,
      approved,
    }),
  cancel: (runId: string) =>
    call<{ runId: string }>('POST', `/runs/${encodeURIComponent(runId)}/cancel`, {}),
  dropConnections: (runId: string) =>
    call<{ dropped: number }>('POST', `/runs/${encodeURIComponent(runId)}/drop`, {}),
  runInfo: (runId: string) =>
    call<{ runId: string; scenario: ScenarioId; notes: DemoNote[] }>(
      'GET',
      `/runs/${encodeURIComponent(runId)}`,
    ),
  settings: () => call<DemoSettings>('GET', '/settings'),
  updateSettings: (patch: Partial<DemoSettings>) => call<DemoSettings>('POST', '/settings', patch),
};
