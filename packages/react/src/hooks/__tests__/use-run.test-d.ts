import type { Activity, RunState } from '@runlight/client';
import type { RunOperation } from '@runlight/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import type { RunView } from '../select-run-view';
import { useRun } from '../use-run';
import { useRunActivity } from '../use-run-activity';
import { useRunOperation } from '../use-run-operation';
import { useSuspenseRun } from '../use-suspense-run';

// Checked by `tsc` (the repo typecheck); never executed.
describe('hook types', () => {
  it('useRun returns a RunView without a selector and the selection with one', () => {
    expectTypeOf(useRun('run-1')).toEqualTypeOf<RunView>();
    expectTypeOf(
      useRun('run-1', { select: (state: RunState) => state.revision }),
    ).toEqualTypeOf<number>();
    expectTypeOf(
      useSuspenseRun('run-1', { select: (state) => state.run?.status ?? null }),
    ).toEqualTypeOf<
      RunState['run'] extends infer R ? (R extends { status: infer S } ? S : never) | null : never
    >();
    expectTypeOf(useSuspenseRun('run-1')).toEqualTypeOf<RunView>();
    expectTypeOf(useRunActivity('run-1')).toEqualTypeOf<Activity>();
    expectTypeOf(useRunOperation('run-1')).toEqualTypeOf<RunOperation | null>();
  });
});
