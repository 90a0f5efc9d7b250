import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';

/**
 * The runtime's instruments, all with low-cardinality attributes only (a closed enum each —
 * never a run id, an owner or a model-generated value). Durations are seconds, as the
 * OpenTelemetry semantic conventions ask.
 */
export class OtelMetrics {
  readonly #timeToFirstOutput: Histogram;
  readonly #providerWait: Histogram;
  readonly #compaction: Histogram;
  readonly #retries: Counter;
  readonly #runsEnded: Counter;
  readonly #stalledRuns: Counter;
  readonly #recoveryLatency: Histogram;

  constructor(meter: Meter) {
    const seconds = { unit: 's' } as const;
    this.#timeToFirstOutput = meter.createHistogram('runlight.model_request.time_to_first_output', {
      ...seconds,
      description: 'From the start of a model-request attempt to its first output.',
    });
    this.#providerWait = meter.createHistogram('runlight.model_request.provider_wait', {
      ...seconds,
      description:
        'From the start of a model request (its first attempt) to its first output, retries included.',
    });
    this.#compaction = meter.createHistogram('runlight.compaction.duration', {
      ...seconds,
      description: 'How long the compaction callback ran.',
    });
    this.#retries = meter.createCounter('runlight.model_request.retries', {
      description: 'Failed model-request attempts the AI SDK retried, by reason.',
    });
    this.#runsEnded = meter.createCounter('runlight.runs.ended', {
      description: 'Runs that reached a terminal status, by status and failure code.',
    });
    this.#stalledRuns = meter.createCounter('runlight.runs.stalled', {
      description: 'Runs taken over because their owner went silent (lease expired).',
    });
    this.#recoveryLatency = meter.createHistogram('runlight.recovery.latency', {
      ...seconds,
      description: 'From a silent owner’s lease expiry to the takeover.',
    });
  }

  timeToFirstOutput(seconds: number, attributes: Attributes): void {
    this.#timeToFirstOutput.record(seconds, attributes);
  }
  providerWait(seconds: number, attributes: Attributes): void {
    this.#providerWait.record(seconds, attributes);
  }
  compaction(seconds: number, attributes: Attributes): void {
    this.#compaction.record(seconds, attributes);
  }
  retry(attributes: Attributes): void {
    this.#retries.add(1, attributes);
  }
  runEnded(attributes: Attributes): void {
    this.#runsEnded.add(1, attributes);
  }
  stalled(): void {
    this.#stalledRuns.add(1);
  }
  recoveryLatency(seconds: number): void {
    this.#recoveryLatency.record(seconds);
  }
}

/** Seconds from one wall-clock observation to another; undefined when either is missing. */
export function secondsBetween(
  from: string | undefined,
  to: string | undefined,
): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  // Wall clocks may move backwards (ADR 0174): a negative span is no duration to record.
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
