import { type ClientRequest, get } from 'node:http';

const now = () => performance.timeOrigin + performance.now();

/** The runner's clock in a delta's text (`"<ms since epoch> "`), as its JSON carries it. */
const SENT_AT = /"delta":"(\d+\.\d+) "/g;

/**
 * The SSE clients of one turn of `pnpm bench:relay`: `clients` readers of each run's
 * `/runs/:id/events`, counting the deltas they receive (one SSE message or several deltas in
 * one: every delta's text is found) and timing each from its publication.
 */
export class SseWatchers {
  received = 0;
  bytes = 0;
  latencies: number[] = [];
  readonly #requests: ClientRequest[] = [];

  /** Resolves once every stream answered with its headers. */
  open(port: number, runIds: readonly string[], clients: number, basePath = ''): Promise<void> {
    const opened: Promise<void>[] = [];
    for (const runId of runIds) {
      for (let n = 0; n < clients; n++) {
        opened.push(
          new Promise((resolve, reject) => {
            const request = get(
              { host: '127.0.0.1', port, path: `${basePath}/runs/${runId}/events`, agent: false },
              (response) => {
                if (response.statusCode !== 200) {
                  reject(new Error(`${runId}: ${response.statusCode}`));
                  return;
                }
                response.setEncoding('utf8');
                let rest = '';
                response.on('data', (text: string) => {
                  // Only whole messages: a delta split across two reads is counted once.
                  const end = text.lastIndexOf('\n\n');
                  if (end < 0) {
                    rest += text;
                    return;
                  }
                  this.#take(rest + text.slice(0, end));
                  rest = text.slice(end);
                });
                response.on('error', () => {});
                resolve();
              },
            );
            request.on('error', (error) => {
              if (!request.destroyed) reject(error);
            });
            this.#requests.push(request);
          }),
        );
      }
    }
    return Promise.all(opened).then(() => {});
  }

  measure(): void {
    this.received = 0;
    this.bytes = 0;
    this.latencies = [];
  }

  close(): void {
    for (const request of this.#requests) request.destroy();
    this.#requests.length = 0;
  }

  #take(text: string): void {
    this.bytes += text.length;
    const at = now();
    for (const match of text.matchAll(SENT_AT)) {
      this.received++;
      this.latencies.push(at - Number(match[1]));
    }
  }
}
