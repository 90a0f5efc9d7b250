import { createRunlightClient } from '@runlight/client';
import { type ComponentProps, createRef, useRef } from 'react';
import { describe, expectTypeOf, it } from 'vitest';
import { RunlightProvider, type RunlightProviderProps } from '../provider/runlight-provider';
import { OperationIndicator, type OperationIndicatorProps } from '../status/operation-indicator';
import { RunStatus, type RunStatusProps } from '../status/run-status';

// Checked by `tsc` (the repo typecheck); never executed.
describe('component prop types', () => {
  it('RunStatus and OperationIndicator take ref objects and callbacks', () => {
    const region = createRef<HTMLDivElement>();
    const span = useRef<HTMLSpanElement>(null);
    <RunStatus runId="run-1" ref={region} />;
    <RunStatus runId="run-1" ref={(element: HTMLDivElement | null) => void element} />;
    <OperationIndicator runId="run-1" ref={span} />;
    expectTypeOf<RunStatusProps['ref']>().toEqualTypeOf<ComponentProps<'div'>['ref']>();
    expectTypeOf<OperationIndicatorProps['ref']>().toEqualTypeOf<ComponentProps<'span'>['ref']>();
  });

  it('RunlightProvider takes a client or a baseUrl, not both and not neither', () => {
    <RunlightProvider baseUrl="/api" />;
    // @ts-expect-error: a client or a baseUrl is required
    <RunlightProvider />;
    // @ts-expect-error: not both
    <RunlightProvider baseUrl="/api" client={createRunlightClient({ baseUrl: '/api' })} />;
    expectTypeOf<{ baseUrl: string }>().toExtend<RunlightProviderProps>();
  });
});
