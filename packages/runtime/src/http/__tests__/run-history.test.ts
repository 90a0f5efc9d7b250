import { parseRunOperationsPage } from '@runlight/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFixture, ScriptedRun } from './http-test-kit';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fixture() {
  const f = await createHttpFixture();
  cleanups.push(f.close);
  return f;
}

/** A finished run of `steps` model requests, each with a checkpoint between start and end. */
async function finishedRun(f: Awaited<ReturnType<typeof fixture>>, steps: number) {
  const run = await ScriptedRun.start(f, 'run-1');
  for (let step = 0; step < steps; step++) {
    await run.startOperation();
    run.delta(`word${step} `);
    await run.checkpoint();
    await run.endOperation();
  }
  await run.complete();
  return run;
}

async function page(f: Awaited<ReturnType<typeof fixture>>, query: string) {
  const response = await fetch(f.url(`/runs/run-1/operations${query}`));
  return { status: response.status, body: await response.json() };
}

describe('GET /runs/:id/operations', () => {
  it('answers every run-operation event of the log, in revision order, with the stored timestamps', async () => {
    const f = await fixture();
    await finishedRun(f, 3);
    const { status, body } = await page(f, '');
    expect(status).toBe(200);
    const parsed = parseRunOperationsPage(body);
    const stored = (await f.store.readEvents('run-1')).filter((e) => e.type === 'run-operation');
    expect(parsed.operations).toEqual(stored);
    expect(parsed.operations.map((e) => e.operation.phase)).toEqual([
      'started',
      'completed',
      'started',
      'completed',
      'started',
      'completed',
    ]);
    expect(parsed.nextAfter).toBeNull();
    expect(parsed.revision).toBe((await f.store.getRun('run-1')).revision);
  });

  it('pages with after and limit: the pages together are the whole history, each once', async () => {
    const f = await fixture();
    await finishedRun(f, 3);
    const all = (await f.store.readEvents('run-1')).filter((e) => e.type === 'run-operation');
    const seen: number[] = [];
    let after: number | null = 0;
    let pages = 0;
    while (after !== null) {
      const { body } = await page(f, `?after=${after}&limit=4`);
      const parsed = parseRunOperationsPage(body);
      expect(parsed.operations.length).toBeLessThanOrEqual(4);
      seen.push(...parsed.operations.map((e) => e.revision));
      after = parsed.nextAfter;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(all.map((e) => e.revision));
  });

  it('answers an empty page for a cursor past the last operation', async () => {
    const f = await fixture();
    const run = await finishedRun(f, 1);
    const { body } = await page(f, `?after=${run.revision}`);
    expect(body).toEqual({
      runId: 'run-1',
      operations: [],
      nextAfter: null,
      revision: run.revision,
    });
  });

  it.each([
    ['?after=-1', 'bad_cursor'],
    ['?after=01', 'bad_cursor'],
    ['?after=x', 'bad_cursor'],
    ['?limit=0', 'bad_limit'],
    ['?limit=1001', 'bad_limit'],
    ['?limit=2.5', 'bad_limit'],
  ])('refuses %s with 400 %s', async (query, code) => {
    const f = await fixture();
    await finishedRun(f, 1);
    const { status, body } = await page(f, query);
    expect(status).toBe(400);
    expect(body.error.code).toBe(code);
  });

  it('answers 404 for an unknown run and 405 for another method', async () => {
    const f = await fixture();
    const missing = await fetch(f.url('/runs/nope/operations'));
    expect(missing.status).toBe(404);
    const post = await fetch(f.url('/runs/nope/operations'), { method: 'POST' });
    expect(post.status).toBe(405);
  });
});
