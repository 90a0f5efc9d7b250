import { at, checkpoint, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import { createRunlightClient } from '../../create-runlight-client';
import { selectRunStatus } from '../../status/select-run-status';
import { dehydrateRun, seedRunStore } from '../seed-run-store';

const client = () =>
  createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: () => Promise.reject(new Error('no network in this test')),
  });
const loaded = {
  snapshot: snapshot(
    5,
    { lastOperation: modelRequestOperation('started', { startedAt: at(1) }) },
    checkpoint(4),
  ),
  clockOffsetMs: 1_500,
};

describe('seedRunStore / dehydrateRun: server rendering', () => {
  it('seeds an empty store once; a second seed (the hydrating render) changes nothing', () => {
    const store = client().run('run-1');
    expect(seedRunStore(store, loaded)).toBe(true);
    const state = store.getState();
    expect(state.revision).toBe(5);
    expect(state.clockOffsetMs).toBe(1_500);
    expect(seedRunStore(store, { ...loaded, snapshot: snapshot(6) })).toBe(false);
    expect(store.getState()).toBe(state);
  });

  it('a bad snapshot sets the error and is not tried again', () => {
    const store = client().run('run-1');
    expect(seedRunStore(store, { snapshot: { run: 'nonsense' }, clockOffsetMs: null })).toBe(false);
    const failed = store.getState();
    expect(failed.error?.kind).toBeDefined();
    expect(seedRunStore(store, loaded)).toBe(false);
    expect(store.getState()).toBe(failed);
  });

  it('what the server dehydrates, the browser seeds: the same status, without the server clock', () => {
    const server = client().run('run-1');
    expect(dehydrateRun(server)).toBeNull();
    seedRunStore(server, loaded);
    const dehydrated = dehydrateRun(server);
    expect(dehydrated?.clockOffsetMs).toBeNull();
    const browser = client().run('run-1');
    expect(seedRunStore(browser, JSON.parse(JSON.stringify(dehydrated)))).toBe(true);
    expect(selectRunStatus(browser.getState())).toEqual({
      ...selectRunStatus(server.getState()),
      clockOffsetMs: null,
    });
  });
});
