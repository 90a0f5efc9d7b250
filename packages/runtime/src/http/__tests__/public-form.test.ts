import {
  PublicAgentRunSchema,
  PublicRunEventSchema,
  PublicRunSnapshotSchema,
  RunEventSchema,
  RunSnapshotSchema,
} from '@runlight/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunServer, serveRunHandlers } from '../../test-kit/index';
import { gatedModel } from '../../testing/gated-model';

/**
 * Issue 22 item 10: what the HTTP handlers send a browser names no worker (`owner` is
 * `runtime-<HOSTNAME>-<pid>-…` in production; `worker-a` here) and carries no fencing token —
 * unless the server opts in with `exposeInternals` (the playground does).
 */
let server: RunServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/**
 * A scripted answer with deltas whose model request holds until `open()`: the test opens it
 * once both streams answered (they subscribe before their headers go out), so every delta
 * reaches both, however slow the machine.
 */
function gatedAnswer() {
  return gatedModel([{ text: ['Hel', 'lo ', 'world'] }]);
}

/** Runs one answer with deltas while a per-run and a multiplexed stream follow it. */
async function everythingSent(exposeInternals: boolean) {
  server = await serveRunHandlers({
    handlers: { exposeInternals },
    multiplex: { exposeInternals },
  });
  const { runtime, store, baseUrl } = server;
  const runId = 'run-public';
  const { model, open } = gatedAnswer();
  const started = runtime.startRun({
    runId,
    model,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  await started.created;
  const [perRunResponse, multiplexedResponse] = await Promise.all([
    fetch(`${baseUrl}/runs/${runId}/events`),
    fetch(`${baseUrl}/run-events?run=${runId}`),
  ]);
  const perRun = perRunResponse.text();
  const multiplexed = multiplexedResponse.text();
  open();
  await started.done;
  const sse = [await perRun, await multiplexed];
  const snapshot = await (await fetch(`${baseUrl}/runs/${runId}`)).json();
  const batched = await (await fetch(`${baseUrl}/runs?ids=${runId}`)).json();
  const events = await store.readEvents(runId, { afterRevision: 0 });
  const fetched = await Promise.all(
    events.map(async (e) => (await fetch(`${baseUrl}/runs/${runId}/events/${e.revision}`)).json()),
  );
  return { sse, snapshot, batched, fetched };
}

/** The `data` of every SSE message of `text` that is a run event. */
const runEventsOf = (text: string): unknown[] =>
  text
    .split('\n\n')
    .filter((frame) => /^event: (run-|assistant-)/m.test(frame))
    .filter((frame) => !/^event: run-(open|end|error)$/m.test(frame))
    .map((frame) =>
      JSON.parse(
        frame
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      ),
    );

describe('the public form (default)', () => {
  it('no owner name and no fencingToken in snapshots, batches, SSE frames (per run, multiplexed) or event fetches', async () => {
    const { sse, snapshot, batched, fetched } = await everythingSent(false);
    for (const text of [
      ...sse,
      JSON.stringify(snapshot),
      JSON.stringify(batched),
      JSON.stringify(fetched),
    ]) {
      expect(text).not.toContain('fencingToken');
      expect(text).not.toContain('worker-a');
    }
    for (const text of sse) {
      // It did carry what matters: the acquisition (a holder tag as owner) and the deltas.
      expect(text).toMatch(/"change":"acquired"[^\n]*"owner":"holder-[0-9a-f-]{36}"/);
      expect(text).toContain('event: run-delta');
      for (const event of runEventsOf(text))
        expect(PublicRunEventSchema.parse(event)).toEqual(event);
    }
    expect(PublicRunSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(PublicRunSnapshotSchema.parse(batched.snapshots[0])).toEqual(batched.snapshots[0]);
    // The owner of the ended run is its last holder's tag, the same on every route.
    const tag = PublicAgentRunSchema.parse(snapshot.run).owner;
    expect(tag).toMatch(/^holder-/);
    expect(batched.snapshots[0].run.owner).toBe(tag);
    for (const text of sse) expect(text).toContain(`"owner":"${tag}"`);
    for (const event of fetched) expect(PublicRunEventSchema.parse(event)).toEqual(event);
  });
});

describe('exposeInternals: true (the playground)', () => {
  it('keeps owner and fencingToken everywhere', async () => {
    const { sse, snapshot, batched, fetched } = await everythingSent(true);
    for (const text of sse) {
      expect(text).toMatch(/"change":"acquired"[^\n]*"owner":"worker-a"[^\n]*"fencingToken":1/);
      expect(text).toMatch(/"type":"run-delta"[^\n]*"fencingToken":1/);
      for (const event of runEventsOf(text)) expect(RunEventSchema.parse(event)).toEqual(event);
    }
    expect(RunSnapshotSchema.parse(snapshot).run.fencingToken).toBe(1);
    expect(RunSnapshotSchema.parse(batched.snapshots[0]).run.fencingToken).toBe(1);
    expect(fetched[1]).toMatchObject({ change: 'acquired', owner: 'worker-a', fencingToken: 1 });
  });
});
