import { createRunlightClient, RunlightClientError } from '@runlight/client';
import { at, modelRequestOperation, operationEvent, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, fireEvent, render, screen } from '@testing-library/vue';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, h, ref } from 'vue';
import { fakeRunServer } from '../../../react/src/__tests__/fake-run-server';
import { settle, useFakeClock } from '../../../react/src/__tests__/harness';
import {
  createRunlight,
  RunlightPluginMissingError,
  RunlightProvider,
  RunStatus,
  useRunConnection,
  useRunControls,
  useRunStatus,
  useRunTimeline,
} from '../index';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const started = modelRequestOperation('started');
const running = snapshot(3, { lastOperation: started });

function setup(answers: { cancel?: number } = {}) {
  const server = fakeRunServer({ json: running });
  const posts: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = String(input);
    if (init?.method === 'POST') {
      posts.push(url.replace('http://runlight.test/api', ''));
      const status = answers.cancel ?? 202;
      return new Response(status === 202 ? null : JSON.stringify({ code: 'run_not_running' }), {
        status,
      });
    }
    if (url.includes('/operations')) {
      return Response.json({
        runId: RUN_ID,
        operations: [operationEvent(3, started)],
        nextAfter: null,
        revision: 3,
      });
    }
    return server.fetch(input, init);
  };
  const client = createRunlightClient({ baseUrl: 'http://runlight.test/api', fetch });
  return { server, posts, runlight: createRunlight({ client }) };
}

describe('composables', () => {
  it('outside the plugin every composable throws a typed error naming itself', () => {
    const Widget = defineComponent({
      setup() {
        useRunStatus(RUN_ID);
        return () => null;
      },
    });
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(() => render(Widget)).toThrow(RunlightPluginMissingError);
    expect(() => render(Widget)).toThrow(/useRunStatus needs Runlight/);
  });

  it('useRunControls follows the run (canCancel), cancels as documented (`void cancel()`) and keeps the typed error of a refusal', async () => {
    useFakeClock(at(4));
    const { runlight, posts } = setup({ cancel: 409 });
    const Widget = defineComponent({
      setup() {
        const { cancel, canCancel, cancelling, error } = useRunControls(RUN_ID);
        return () =>
          h('div', [
            h('button', { disabled: !canCancel.value, onClick: () => void cancel() }, 'Cancel'),
            h('p', { 'data-testid': 'state' }, `${cancelling.value} ${error.value?.kind ?? ''}`),
          ]);
      },
    });
    render(Widget, { global: { plugins: [runlight] } });
    await settle();
    const button = screen.getByText('Cancel') as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    await fireEvent.click(button);
    await settle();
    expect(posts).toEqual([`/runs/${RUN_ID}/cancel`]);
    expect(screen.getByTestId('state').textContent).toBe('false http');
  });

  it('useRunControls resolves to the typed result, never rejects', async () => {
    const { runlight } = setup({ cancel: 409 });
    let controls: ReturnType<typeof useRunControls> | undefined;
    render(
      defineComponent({
        setup() {
          controls = useRunControls(RUN_ID);
          return () => null;
        },
      }),
      { global: { plugins: [runlight] } },
    );
    const result = await controls!.cancel();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(RunlightClientError.isInstance(result.error)).toBe(true);
    expect(result.error.status).toBe(409);
    expect(controls!.error.value).toBe(result.error);
  });

  it('useRunConnection goes live once mounted; useRunTimeline loads the history into rows', async () => {
    useFakeClock(at(4));
    const { runlight, server } = setup();
    const Widget = defineComponent({
      setup() {
        const connection = useRunConnection(RUN_ID);
        const timeline = useRunTimeline(RUN_ID);
        return () => h('p', `${connection.value.state} ${timeline.value.rows.length}`);
      },
    });
    const { container } = render(Widget, { global: { plugins: [runlight] } });
    await settle();
    expect(container.textContent).toBe('live 1');
    expect(server.requests).toEqual({ snapshot: 1, events: 1 });
  });

  it('a run id given as a ref is followed, one connection per shown run', async () => {
    useFakeClock(at(4));
    const { runlight, server } = setup();
    const runId = ref(RUN_ID);
    render(defineComponent({ setup: () => () => h(RunStatus, { runId: runId.value }) }), {
      global: { plugins: [runlight] },
    });
    await settle();
    expect(screen.getByRole('status').textContent).toContain('Waiting for the model');
    runId.value = 'run-2';
    await settle();
    // run-2 is answered with run-1's snapshot: the client refuses it as a mismatch.
    expect(screen.getByRole('status').getAttribute('data-error')).toBe('run-mismatch');
    await settle();
    expect(server.openStreams()).toBe(0);
  });

  it('RunlightProvider provides a part of an app; the headless slot gets the activity and time', async () => {
    useFakeClock(at(4));
    const { runlight } = setup();
    render(
      defineComponent({
        setup: () => () =>
          h(RunlightProvider, { client: runlight.client }, () =>
            h(
              RunStatus,
              { runId: RUN_ID },
              {
                default: ({
                  activity,
                  elapsedMs,
                }: {
                  activity: { kind: string };
                  elapsedMs: number | null;
                }) => h('b', `${activity.kind} ${elapsedMs}`),
              },
            ),
          ),
      }),
    );
    await settle();
    const status = screen.getByRole('status');
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(status.textContent).toBe('waiting-for-model 3000');
  });
});
