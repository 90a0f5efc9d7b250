import type { RunEvent } from '@runlight/protocol';

/** One SSE client of a run's events route: what it received, as it arrives. */
export interface SseWatcher {
  /** Every message with its `id`, in order. */
  readonly messages: { id: string | null; event: RunEvent }[];
  /** `performance.now()` of each `: ping` received. */
  readonly pings: number[];
  /** Resolves once the server ends the stream. */
  readonly ended: Promise<void>;
  stop(): void;
}

/** Opens `url` and records its messages and pings until the server ends it (or `stop`). */
export async function watchEvents(url: string): Promise<SseWatcher> {
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal });
  if (!response.ok || !response.body) throw new Error(`GET ${url}: ${response.status}`);
  const messages: SseWatcher['messages'] = [];
  const pings: number[] = [];
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block === ': ping') {
          pings.push(performance.now());
          continue;
        }
        let id: string | null = null;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length > 0) messages.push({ id, event: JSON.parse(data.join('\n')) as RunEvent });
      }
    }
  })().catch(() => {});
  return { messages, pings, ended, stop: () => abort.abort() };
}
