import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { initialRunState, type RunState } from '../../merge/run-state';
import { RunObserver } from '../run-observer';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 300);

/** What a view shows of a state: its revision in buckets of `size` (a new object each time). */
interface Bucket {
  readonly size: number;
  readonly bucket: number;
}
const bucketsOf =
  (size: number) =>
  (state: RunState): Bucket => ({ size, bucket: Math.floor(state.revision / size) });
const sameBucket = (a: Bucket, b: Bucket) => a.size === b.size && a.bucket === b.bucket;

type Step =
  | { kind: 'state'; revision: number }
  | { kind: 'subscribe' }
  | { kind: 'unsubscribe'; which: number }
  | { kind: 'selector'; size: number }
  | { kind: 'read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('state' as const), revision: fc.integer({ min: 0, max: 12 }) }),
  fc.constant({ kind: 'subscribe' as const }),
  fc.record({ kind: fc.constant('unsubscribe' as const), which: fc.nat(4) }),
  fc.record({ kind: fc.constant('selector' as const), size: fc.integer({ min: 1, max: 3 }) }),
  fc.constant({ kind: 'read' as const }),
);

describe('RunObserver under any interleaving of states, subscribers and selectors', () => {
  it('selects right, keeps the reference of an equal selection, tells listeners exactly when it changed, and subscribes the store once per watch', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let state = initialRunState('run-1');
        const storeListeners = new Set<() => void>();
        const store = {
          getState: () => state,
          subscribe: vi.fn((listener: () => void) => {
            storeListeners.add(listener);
            return () => {
              storeListeners.delete(listener);
            };
          }),
          watch: vi.fn(() => () => {}),
        };
        let size = 1;
        // A new function every time, as an inline selector in a render is.
        const options = () => ({ select: bucketsOf(size), isEqual: sameBucket });
        const observer = new RunObserver(store, options());
        const subscribed: { stop: () => void; told: number }[] = [];
        let attaches = 0;
        let shown = observer.getSnapshot();

        for (const next of steps) {
          const toldBefore = subscribed.map((each) => each.told);
          if (next.kind === 'state') {
            state = { ...state, revision: next.revision };
            for (const listener of [...storeListeners]) listener();
          } else if (next.kind === 'subscribe') {
            if (subscribed.length === 0) attaches++;
            const entry = { stop: () => {}, told: 0 };
            entry.stop = observer.subscribe(() => {
              entry.told++;
            });
            subscribed.push(entry);
          } else if (next.kind === 'unsubscribe') {
            const [gone] = subscribed.splice(next.which % Math.max(1, subscribed.length), 1);
            gone?.stop();
          } else if (next.kind === 'selector') {
            size = next.size;
            observer.setOptions(options());
          }

          const now = observer.getSnapshot();
          // Right: what the current selector makes of the current state.
          expect(now).toEqual(bucketsOf(size)(state));
          // Stable: a second read without a change is the same object.
          expect(observer.getSnapshot()).toBe(now);
          // An equal selection keeps the reference a reader already holds.
          if (sameBucket(shown, now)) expect(now).toBe(shown);
          // Listeners hear of a store change exactly when the selection changed.
          if (next.kind === 'state') {
            const changed = now !== shown;
            subscribed.forEach((each, index) => {
              if (index < toldBefore.length) {
                expect(each.told - (toldBefore[index] ?? 0)).toBe(changed ? 1 : 0);
              }
            });
          }
          shown = now;
          // One store subscription per stretch with listeners, however selectors changed.
          expect(store.subscribe).toHaveBeenCalledTimes(attaches);
          expect(storeListeners.size).toBe(subscribed.length > 0 ? 1 : 0);
        }
        for (const each of subscribed) each.stop();
        expect(storeListeners.size).toBe(0);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
