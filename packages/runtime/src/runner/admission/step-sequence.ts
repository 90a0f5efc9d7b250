import type { RunOperation } from '@runlight/protocol';
import type { ExecutionStop } from '../lifecycle/execution-stop';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Step bookkeeping of one execution. `prepareStep` (awaited, once per step, before
 * middleware) sets the SDK's step; the run's step adds `offset` (a resumed run continues the
 * count). The consumer loop marks step k `committed` once its finish-step checkpoint
 * committed; the next step's compaction and admission wait for it (ADR 0174: it orders only
 * the following provider request, not tool execution).
 *
 * @example
 * const steps = new StepSequence(acquired.lastOperation, stop);
 * steps.sdkStep = 1;
 * await steps.previousStepCommitted(1); // until `steps.committed(0)`, or the run stops
 */
export class StepSequence {
  /** The run's step of the SDK's step 0: `lastOperation.step + 1` for a resumed run. */
  readonly offset: number;
  /** The SDK's current step, as `prepareStep` last set it. */
  sdkStep = 0;
  readonly #stop: ExecutionStop;
  readonly #finished: Deferred[] = [];

  constructor(lastOperation: RunOperation | null, stop: ExecutionStop) {
    const lastStep = lastOperation?.step;
    this.offset = lastStep === undefined ? 0 : lastStep + 1;
    this.#stop = stop;
  }

  /** Step `index` of this call has its finish-step checkpoint committed. */
  committed(index: number): void {
    this.#deferred(index).resolve();
  }

  /** Waits until step `sdkStep - 1` of this call has its finish-step checkpoint committed. */
  async previousStepCommitted(sdkStep: number): Promise<void> {
    if (sdkStep > 0) {
      await Promise.race([this.#deferred(sdkStep - 1).promise, this.#stop.abortedPromise()]);
    }
    this.#stop.throwIfStopped();
  }

  #deferred(index: number): Deferred {
    let entry = this.#finished[index];
    if (!entry) {
      entry = deferred();
      this.#finished[index] = entry;
    }
    return entry;
  }
}
