import {
  type DurableRunEvent,
  isTerminalStatus,
  type RunDeltaEvent,
  type RunEvent,
} from '@runlight/protocol';

const DURABLE = new Set([
  'run-status',
  'run-operation',
  'assistant-checkpoint',
  'assistant-append',
]);

/** What one watcher of a run received, across reloads. */
export interface FollowedRun {
  /** Durable events in the order received (from streams). */
  durable: DurableRunEvent[];
  deltas: RunDeltaEvent[];
  /** Snapshot revisions it reloaded at after a `reset`. */
  reloads: number[];
  /** Every `reset` reason. */
  resets: string[];
}

async function* sseMessages(response: Response): AsyncGenerator<{ event: string; data: string }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

/**
 * A client of a run's events on `origin`, as the headless client behaves: it follows the SSE
 * stream until the run's terminal event; on a `reset` it reloads the snapshot and follows again
 * after its revision.
 */
export async function followRun(origin: string, runId: string): Promise<FollowedRun> {
  const followed: FollowedRun = { durable: [], deltas: [], reloads: [], resets: [] };
  let after = 0;
  for (let connection = 0; connection < 20; connection++) {
    const response = await fetch(`${origin}/runs/${runId}/events?after=${after}`, {
      signal: AbortSignal.timeout(60_000),
    });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    let reset = false;
    for await (const message of sseMessages(response)) {
      const event = JSON.parse(message.data) as RunEvent | { type: 'reset'; reason: string };
      if (event.type === 'reset') {
        followed.resets.push(event.reason);
        reset = true;
        break;
      }
      if (event.type === 'run-delta') {
        followed.deltas.push(event);
        continue;
      }
      if (!DURABLE.has(event.type)) throw new Error(`unexpected ${message.data}`);
      const durable = event as DurableRunEvent;
      followed.durable.push(durable);
      after = durable.revision;
      if (durable.type === 'run-status' && isTerminalStatus(durable.status)) return followed;
    }
    if (!reset) throw new Error(`the stream of ${runId} ended before the run did`);
    const snapshot = (await (await fetch(`${origin}/runs/${runId}`)).json()) as {
      revision: number;
    };
    followed.reloads.push(snapshot.revision);
    after = snapshot.revision;
  }
  throw new Error(`${runId}: 20 reloads`);
}

/** Every durable revision received arrived in order, and none was skipped but by a reload. */
export function gapsOf(followed: FollowedRun): string[] {
  const gaps: string[] = [];
  let revision = 0;
  let reloads = [...followed.reloads];
  for (const event of followed.durable) {
    if (event.revision !== revision + 1) {
      const reload = reloads.find((at) => at >= event.revision - 1 && at < event.revision);
      if (reload === undefined) gaps.push(`${revision} → ${event.revision}`);
      reloads = reloads.filter((at) => at !== reload);
    }
    revision = event.revision;
  }
  return gaps;
}
