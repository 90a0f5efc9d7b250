import {
  createRunlightClient,
  inspectRunlightClient,
  type RunStore,
  runLogOf,
  selectActivity,
} from '@runlight/client';
import { act, render, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server';
import { RunlightDevtools as DevelopmentOnly } from '../index';
import { RunlightDevtools } from '../production';
import { runAsJson } from '../run/run-as-json';
import { useWatchedRun } from '../run/use-watched-run';

const AT = '2026-01-01T00:00:00.000Z';
const running = {
  run: {
    id: 'run-1',
    status: 'running',
    owner: 'holder-1',
    revision: 3,
    lastOperation: {
      id: 'model-request:step-0',
      kind: 'model-request',
      phase: 'started',
      step: 0,
      startedAt: AT,
    },
    failure: null,
    leaseExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    createdAt: AT,
    updatedAt: AT,
  },
  assistant: null,
  revision: 3,
};

const SECRET = 'Bearer sk-test-do-not-copy';

function setup() {
  const server = fakeRunServer({ json: running });
  const client = createRunlightClient({
    baseUrl: 'http://x/api',
    fetch: server.fetch,
    headers: { authorization: SECRET },
  });
  return { server, client };
}

/** What the devtools show of a run, as they watch it. */
function WatchedActivity({ store }: { store: RunStore }) {
  return <p data-testid="kind">{selectActivity(useWatchedRun(store)).kind}</p>;
}

const shadowOf = (container: HTMLElement) =>
  container.querySelector('[data-runlight-devtools]')?.shadowRoot ?? null;

// The panel is a lazy chunk: transformed once here, not within a `waitFor`'s second.
beforeAll(() => import('../shell/runlight-devtools-panel'));

afterEach(() => {
  document.body.innerHTML = '';
});

describe('RunlightDevtools', () => {
  it('renders nothing and records nothing outside development (the default entry)', async () => {
    const { client } = setup();
    const { container } = render(<DevelopmentOnly client={client} />);
    expect(container.innerHTML).toBe('');
    const store = client.run('run-1');
    await store.reload();
    // Had the devtools started recording, the snapshot just merged would be in the log.
    expect(runLogOf(store).getState().entries).toEqual([]);
    expect(runLogOf(store).getState().base.revision).toBe(3);
  });

  it('opens with its button (focus to the heading), lists the runs, shows the facts and closes with Escape', async () => {
    const { client } = setup();
    const store = client.run('run-1');
    const off = store.subscribe(() => {});
    const { container } = render(<RunlightDevtools client={client} />);
    await waitFor(() => expect(shadowOf(container)?.querySelector('button')).toBeTruthy(), {
      timeout: 30_000,
    });
    const shadow = shadowOf(container)!;
    const toggle = shadow.querySelector<HTMLButtonElement>(
      '[data-testid="runlight-devtools-toggle"]',
    )!;
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await act(async () => toggle.click());
    const panel = shadow.querySelector('[data-testid="runlight-devtools"]')!;
    expect(shadow.activeElement?.tagName).toBe('H2');
    await waitFor(() =>
      expect(shadow.querySelector('[data-fact="activity"]')?.textContent).toMatch(
        /^waiting-for-model/,
      ),
    );
    expect(shadow.querySelector('[data-testid="runlight-devtools-run"]')?.textContent).toContain(
      'run-1',
    );
    expect(shadow.querySelector('[data-fact="holder"]')?.textContent).toBe('holder-1');
    // The snapshot the store merged is the log's first entry; time travel shows its revision.
    await waitFor(() =>
      expect(
        shadow
          .querySelector('[data-testid="runlight-devtools-travel"]')
          ?.getAttribute('data-revision'),
      ).toBe('3'),
    );
    // The panel's styles live in its shadow root; the document gets none.
    expect(shadow.querySelector('style')?.textContent).toContain('.rl-panel');
    expect(document.head.querySelectorAll('style').length).toBe(0);

    await act(async () => {
      panel.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    expect(shadow.querySelector('[data-testid="runlight-devtools"]')).toBeNull();
    expect(shadow.activeElement).toBe(toggle);
    off();
  });

  it('watches a run passively: no connection opened, each change shown at once', async () => {
    const { client, server } = setup();
    const store = client.run('run-1');
    await store.reload();
    const { getByTestId } = render(<WatchedActivity store={store} />);
    expect(getByTestId('kind').textContent).toBe('waiting-for-model');
    await act(async () => {
      store.applySnapshot({
        ...running,
        run: {
          ...running.run,
          revision: 4,
          lastOperation: { ...running.run.lastOperation, phase: 'first-output', firstOutputAt: AT },
        },
        revision: 4,
      });
    });
    expect(getByTestId('kind').textContent).toBe('streaming');
    expect(server.requests.events).toBe(0);
    expect(store.getState().connection).toBe('idle');
  });

  it('shows each change of a run at once, without polling', async () => {
    const { client } = setup();
    const store = client.run('run-1');
    await store.reload();
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const { container } = render(<RunlightDevtools client={client} initialIsOpen />);
    await waitFor(
      () =>
        expect(shadowOf(container)?.querySelector('[data-fact="activity"]')?.textContent).toMatch(
          /^waiting-for-model/,
        ),
      { timeout: 30_000 },
    );
    store.applySnapshot({
      ...running,
      run: {
        ...running.run,
        revision: 4,
        lastOperation: { ...running.run.lastOperation, phase: 'first-output', firstOutputAt: AT },
      },
      revision: 4,
    });
    const shadow = shadowOf(container)!;
    await waitFor(() =>
      expect(shadow.querySelector('[data-fact="activity"]')?.textContent).toMatch(/^streaming/),
    );
    // The run list's entry reads the new activity as well (it was polled every 500 ms).
    expect(shadow.querySelector('[data-testid="runlight-devtools-run"]')?.textContent).toBe(
      'run-1Writing the answer',
    );
    // No poll of the store or the log (they ran every 250 and 500 ms); the elapsed clock ticks
    // at 100 ms while a time runs, and `waitFor` retries every 50 ms.
    const periods = intervals.mock.calls.map(([, ms]) => ms);
    expect(periods.filter((ms) => ms !== 100 && ms !== 50)).toEqual([]);
    intervals.mockRestore();
  });

  it('records the control requests the client sent and how the server answered', async () => {
    const answers = [202, 409];
    const client = createRunlightClient({
      baseUrl: 'http://x/api',
      fetch: async () =>
        answers.shift() === 202
          ? new Response(null, { status: 202 })
          : Response.json({ error: { code: 'not_awaiting_approval' } }, { status: 409 }),
    });
    const inspection = inspectRunlightClient(client)!;
    await client.cancel('run-1');
    await expect(
      client.answerApprovals('run-1', [{ approvalId: 'a1', approved: true }]),
    ).rejects.toThrow();
    expect(
      inspection
        .controlRequests()
        .map(({ kind, status, errorKind }) => ({ kind, status, errorKind })),
    ).toEqual([
      { kind: 'cancel', status: 'accepted', errorKind: undefined },
      { kind: 'approvals', status: 'failed', errorKind: 'http' },
    ]);
  });

  it('sees the requests of methods taken from the client before it was inspected, and leaves the client as it was', async () => {
    const client = createRunlightClient({
      baseUrl: 'http://x/api',
      fetch: async () => new Response(null, { status: 202 }),
    });
    // As a binding or an app captures them at start, before the devtools mount.
    const { cancel, answerApprovals } = client;
    const inspection = inspectRunlightClient(client)!;
    expect(client.cancel).toBe(cancel);
    expect(client.answerApprovals).toBe(answerApprovals);
    await cancel('run-1');
    await answerApprovals('run-1', [
      { approvalId: 'a1', approved: true },
      { approvalId: 'a2', approved: false },
    ]);
    await expect(answerApprovals('run-1', [])).rejects.toThrow();
    expect(
      inspection
        .controlRequests()
        .map(({ kind, status, answers, errorKind }) => ({ kind, status, answers, errorKind })),
    ).toEqual([
      { kind: 'cancel', status: 'accepted', answers: undefined, errorKind: undefined },
      { kind: 'approvals', status: 'accepted', answers: 2, errorKind: undefined },
      { kind: 'approvals', status: 'failed', answers: 0, errorKind: 'invalid-request' },
    ]);
  });

  it('copies the run as the server sent it, never the client’s headers', async () => {
    const { client } = setup();
    inspectRunlightClient(client)!.record();
    const store = client.run('run-1');
    await store.reload();
    const json = runAsJson(store, []);
    const report = JSON.parse(json) as {
      runId: string;
      state: { run: unknown };
      log: { entries: unknown[] };
    };
    expect(report.runId).toBe('run-1');
    expect(report.state.run).toEqual(running.run);
    expect(report.log.entries).toHaveLength(1);
    expect(json).not.toContain(SECRET);
    expect(json).not.toContain('authorization');
  });
});
