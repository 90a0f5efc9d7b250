import { at, modelRequestOperation, RUN_ID, snapshot } from '@runlight/test-utils';
import { cleanup, render } from '@testing-library/react';
import fc from 'fast-check';
import { Fragment, StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useRun } from '../hooks/use-run';
import { OperationIndicator } from '../status/operation-indicator';
import { RunStatus } from '../status/run-status';
import { advance, harness, settle, useFakeClock } from './harness';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function Transcript() {
  return <p>{useRun(RUN_ID).message?.id}</p>;
}

const SLOTS = [
  { name: 'status', Slot: RunStatus },
  { name: 'indicator', Slot: OperationIndicator },
  { name: 'transcript', Slot: Transcript },
] as const;

type Command = { type: 'toggle'; slot: number; remount: boolean } | { type: 'wait'; ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    type: fc.constant('toggle' as const),
    slot: fc.integer({ min: 0, max: SLOTS.length - 1 }),
    remount: fc.boolean(),
  }),
  fc.record({ type: fc.constant('wait' as const), ms: fc.constantFrom(0, 1, 50, 1000) }),
);

function Page({
  mounted,
  keys,
}: {
  mounted: Record<string, boolean>;
  keys: Record<string, number>;
}) {
  return (
    <>
      {SLOTS.map(({ name, Slot }) =>
        mounted[name] ? (
          <Fragment key={`${name}-${keys[name]}`}>
            <Slot runId={RUN_ID} />
          </Fragment>
        ) : null,
      )}
    </>
  );
}

describe('connection ref-counting (property)', () => {
  it('any schedule of mounts, remounts and unmounts: one stream while mounted, never reopened, none after', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(command, { minLength: 1, maxLength: 12 }),
        async (strict, commands) => {
          useFakeClock(at(10));
          const { wrapper, server } = harness({
            json: snapshot(5, { lastOperation: modelRequestOperation('started') }),
          });
          const Wrap = strict ? StrictMode : Fragment;
          const mounted: Record<string, boolean> = {};
          const keys: Record<string, number> = {};
          const view = render(
            <Wrap>
              <Page mounted={{ ...mounted }} keys={{ ...keys }} />
            </Wrap>,
            { wrapper },
          );
          try {
            for (const step of commands) {
              const wasMounted = Object.values(mounted).some(Boolean);
              const eventsBefore = server.requests.events;
              if (step.type === 'toggle') {
                const { name } = SLOTS[step.slot]!;
                if (step.remount && mounted[name]) keys[name] = (keys[name] ?? 0) + 1;
                else mounted[name] = !mounted[name];
                view.rerender(
                  <Wrap>
                    <Page mounted={{ ...mounted }} keys={{ ...keys }} />
                  </Wrap>,
                );
                await settle(2);
              } else {
                await advance(step.ms);
              }
              expect(server.openStreams()).toBeLessThanOrEqual(1);
              const anyMounted = Object.values(mounted).some(Boolean);
              if (anyMounted) expect(server.openStreams()).toBe(1);
              // Mounted throughout (StrictMode's double effects, remounts): never a new request.
              if (wasMounted && anyMounted) expect(server.requests.events).toBe(eventsBefore);
              else if (step.type === 'wait') expect(server.openStreams()).toBe(0);
            }
            view.unmount();
            await advance(1);
            expect(server.openStreams()).toBe(0);
            expect(server.requests.snapshot).toBeLessThanOrEqual(1);
          } finally {
            cleanup();
            vi.useRealTimers();
          }
        },
      ),
      { seed, numRuns: 40 },
    );
  });
});
