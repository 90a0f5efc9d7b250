// @vitest-environment node
import { createRunlightClient, type LoadedSnapshot } from '@runlight/client';
import { at, modelRequestOperation, snapshot } from '@runlight/test-utils';
import { render } from 'svelte/server';
import { describe, expect, it } from 'vitest';
import { loadRun } from '../index.js';
import Provided from './fixtures/Provided.svelte';

/** A client whose every request is counted and refused: a server render must make none. */
function countingClient() {
  const requests: string[] = [];
  const client = createRunlightClient({
    baseUrl: 'http://runlight.test/api',
    fetch: async (input) => {
      requests.push(String(input));
      throw new Error('no request during a server render');
    },
  });
  return { client, requests };
}

const html = (body: string) => body.replace(/<!--[^>]*-->/g, '');

describe('server rendering (SvelteKit)', () => {
  it('renders a loaded snapshot with its words and no request; a running time is left to the browser', async () => {
    const { client, requests } = countingClient();
    const loaded: LoadedSnapshot = {
      snapshot: snapshot(5, {
        lastOperation: modelRequestOperation('started', { startedAt: at(3) }),
      }),
      clockOffsetMs: null,
    };
    const { body } = render(Provided, { props: { client, loaded } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(html(body)).toBe(
      '<div role="status" aria-live="polite" data-runlight="status" data-activity="waiting-for-model">' +
        '<span aria-hidden="true" data-runlight="indicator" data-activity="waiting-for-model" data-busy=""></span>' +
        '<span data-runlight-part="label">Waiting for the model</span></div>',
    );
    expect(requests).toEqual([]);
  });

  it("renders a finished run's time, which does not tick", () => {
    const { client, requests } = countingClient();
    const loaded: LoadedSnapshot = {
      snapshot: snapshot(5, { status: 'completed', owner: null, updatedAt: at(7.5) }),
      clockOffsetMs: 120,
    };
    const { body } = render(Provided, { props: { client, loaded } });
    expect(html(body)).toContain('<span data-runlight-part="label">Completed</span>');
    expect(html(body)).toContain(
      '<span aria-hidden="true" data-runlight-part="elapsed">7.5 s</span>',
    );
    expect(requests).toEqual([]);
  });

  it('loadRun on a server fetches the snapshot once and drops the clock offset (it measures the server)', async () => {
    const requests: string[] = [];
    const served = { ...snapshot(5), serverTime: at(99) };
    const loaded = await loadRun(
      {
        baseUrl: 'http://runlight.test/api',
        fetch: async (input) => {
          requests.push(String(input));
          return Response.json(served);
        },
      },
      'run-1',
    );
    expect(requests).toEqual(['http://runlight.test/api/runs/run-1']);
    expect(loaded.snapshot.run.id).toBe('run-1');
    expect(loaded.clockOffsetMs).toBeNull();
  });
});
