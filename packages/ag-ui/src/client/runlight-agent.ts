import {
  AbstractAgent,
  AGUIConnectNotImplementedError,
  type AgentConfig,
  type BaseEvent,
  type RunAgentInput,
  runHttpRequest,
  transformHttpEventStream,
} from '@ag-ui/client';
import { Observable } from 'rxjs';

export interface RunlightAgentConfig extends AgentConfig {
  /** Where `createAgUiRoute` is mounted, e.g. `/api/ag-ui`. */
  url: string;
  /** The Runlight run to `connect()` to (e.g. kept across a reload); learnt from each run's start. */
  runId?: string;
  /** Headers of every request (a function is called before each one: a fresh token). */
  headers?:
    | Record<string, string>
    | (() => Record<string, string> | Promise<Record<string, string>>);
  /** The transport; defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Called with the run's id as soon as a stream names it (store it to reconnect after a reload). */
  onRunId?: (runId: string) => void;
}

/**
 * An AG-UI agent on a Runlight server (`createAgUiRoute`): `runAgent()` POSTs the
 * `RunAgentInput` (a new run, or the answers to its interrupts through `resume`), and
 * `connect()` — which `HttpAgent` does not implement — reconnects to the run after a reload:
 * the server sends a snapshot (`MESSAGES_SNAPSHOT`, `STATE_SNAPSHOT`, the `runlight.operation`
 * activity) and then the live events, never a replay of history.
 *
 * @example
 * const agent = new RunlightAgent({ url: '/api/ag-ui', runId: sessionStorage.getItem('run') ?? undefined,
 *   onRunId: (id) => sessionStorage.setItem('run', id) });
 * if (agent.runId) await agent.connectAgent(); else await agent.runAgent();
 */
export class RunlightAgent extends AbstractAgent {
  readonly url: string;
  runId: string | undefined;
  private readonly config: RunlightAgentConfig;
  private abortController = new AbortController();

  constructor(config: RunlightAgentConfig) {
    super(config);
    this.url = config.url;
    this.runId = config.runId;
    this.config = config;
  }

  private async headers(): Promise<Record<string, string>> {
    const headers = this.config.headers;
    return typeof headers === 'function' ? await headers() : { ...(headers ?? {}) };
  }

  private learn(events: Observable<BaseEvent>): Observable<BaseEvent> {
    return new Observable<BaseEvent>((subscriber) =>
      events.subscribe({
        next: (event) => {
          if (event.type === 'RUN_STARTED' && typeof event.runId === 'string') {
            this.runId = event.runId;
            this.config.onRunId?.(event.runId);
          }
          subscriber.next(event);
        },
        error: (error) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
  }

  private request(init: () => Promise<RequestInit & { url: string }>): Observable<BaseEvent> {
    const fetch = this.config.fetch ?? globalThis.fetch;
    this.abortController = new AbortController();
    const signal = this.abortController.signal;
    return this.learn(
      transformHttpEventStream(
        runHttpRequest(async () => {
          const { url, ...rest } = await init();
          return fetch(url, { ...rest, signal });
        }),
      ),
    );
  }

  run(input: RunAgentInput): Observable<BaseEvent> {
    return this.request(async () => ({
      url: this.url,
      method: 'POST',
      headers: {
        ...(await this.headers()),
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(input),
    }));
  }

  protected override connect(_input: RunAgentInput): Observable<BaseEvent> {
    const runId = this.runId;
    // No run yet: nothing to resume. The standard's "connect not implemented" error is the one
    // front ends (CopilotKit's chat, which connects on mount) treat as "start fresh".
    if (runId === undefined) throw new AGUIConnectNotImplementedError();
    const url = new URL(this.url, globalThis.location?.href ?? 'http://localhost');
    url.searchParams.set('runId', runId);
    const target = /^https?:/.test(this.url) ? url.href : `${url.pathname}${url.search}`;
    return this.request(async () => ({
      url: target,
      method: 'GET',
      headers: { ...(await this.headers()), accept: 'text/event-stream' },
    }));
  }

  override abortRun(): void {
    this.abortController.abort();
    super.abortRun();
  }

  override clone(): RunlightAgent {
    const copy = super.clone() as RunlightAgent;
    Object.assign(copy, { url: this.url, runId: this.runId, config: this.config });
    copy.abortController = new AbortController();
    return copy;
  }
}
