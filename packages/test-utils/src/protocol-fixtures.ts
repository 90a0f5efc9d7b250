import type {
  AgentRun,
  AssistantAppendEvent,
  AssistantCheckpoint,
  AssistantCheckpointEvent,
  RunDeltaEvent,
  RunOperation,
  RunOperationEvent,
  RunSnapshot,
  RunStatusEvent,
  UIMessage,
  UIMessageChunk,
} from '@runlight/protocol';

/*
 * Hand-made, schema-valid protocol values (runs, snapshots, events) for the client and React
 * table tests. They share one run (`RUN_ID`) and one time axis: `at(n)` is `n` seconds after
 * `RUN_T0`, and an event's `at` is `at(revision)`, so a value's times follow from its revision.
 *
 * `RUN_T0`, `modelRequestOperation` and `compactionOperation` are not called `T0`,
 * `modelRequest` and `compaction` because the store fixtures in `./fixtures` (runtime tests)
 * already use those names with another clock and other signatures.
 */

/** The id of the one run every fixture belongs to. */
export const RUN_ID = 'run-1';

/** The run's `createdAt`; every other time is an offset from it. */
export const RUN_T0 = '2026-12-02T10:00:00.000Z';

/**
 * The ISO time `seconds` after `RUN_T0` (fractions and negatives allowed).
 *
 * @example
 * at(1.5); // '2026-12-02T10:00:01.500Z'
 */
export const at = (seconds: number): string =>
  new Date(Date.parse(RUN_T0) + seconds * 1000).toISOString();

/**
 * A model-request operation in `phase`, with the timestamps that phase requires
 * (`startedAt` at(1), `firstOutputAt` at(2), `endedAt` at(3) unless given).
 *
 * @example
 * modelRequestOperation('first-output', { startedAt: at(3), firstOutputAt: at(8.8) });
 */
export function modelRequestOperation(
  phase: RunOperation['phase'],
  options: { step?: number; startedAt?: string; firstOutputAt?: string; endedAt?: string } = {},
): RunOperation {
  const step = options.step ?? 0;
  const operation: RunOperation = {
    id: `req-step-${step}`,
    kind: 'model-request',
    phase,
    step,
    startedAt: options.startedAt ?? at(1),
  };
  if (phase !== 'started') operation.firstOutputAt = options.firstOutputAt ?? at(2);
  if (phase === 'completed' || phase === 'failed' || phase === 'cancelled') {
    operation.endedAt = options.endedAt ?? at(3);
  }
  return operation;
}

/**
 * A compaction operation in `phase` (`startedAt` at(1), `endedAt` at(2) unless given; a
 * completed one has outcome `compacted`). Without `step` the operation carries none.
 *
 * @example
 * compactionOperation('started', { startedAt: at(4) });
 */
export function compactionOperation(
  phase: Exclude<RunOperation['phase'], 'first-output'>,
  options: { id?: string; step?: number; startedAt?: string; endedAt?: string } = {},
): RunOperation {
  const operation: RunOperation = {
    id: options.id ?? 'compact-1',
    kind: 'compaction',
    phase,
    startedAt: options.startedAt ?? at(1),
  };
  if (options.step !== undefined) operation.step = options.step;
  if (phase !== 'started') operation.endedAt = options.endedAt ?? at(2);
  if (phase === 'completed') operation.outcome = 'compacted';
  return operation;
}

/**
 * The run at `revision`: running, owned by `worker-a` with fencing token 1, updated at(revision).
 *
 * @example
 * run(5, { status: 'completed', owner: null });
 */
export function run(revision: number, overrides: Partial<AgentRun> = {}): AgentRun {
  return {
    id: RUN_ID,
    status: 'running',
    owner: 'worker-a',
    fencingToken: 1,
    revision,
    lastOperation: null,
    failure: null,
    leaseExpiresAt: null,
    createdAt: RUN_T0,
    updatedAt: at(revision),
    ...overrides,
  };
}

/**
 * An assistant message (`msg-1`) with one text part.
 *
 * @example
 * textMessage('Hello', 'done');
 */
export function textMessage(text: string, state: 'streaming' | 'done' = 'streaming'): UIMessage {
  return { id: 'msg-1', role: 'assistant', parts: [{ type: 'text', text, state }] };
}

/**
 * An assistant checkpoint taken at `revision`.
 *
 * @example
 * checkpoint(4, textMessage('Hel'));
 */
export function checkpoint(
  revision: number,
  message: UIMessage = textMessage('Hel'),
): AssistantCheckpoint {
  return { revision, message };
}

/**
 * The snapshot of `run(revision, runOverrides)` with an optional assistant checkpoint.
 *
 * @example
 * snapshot(5, { lastOperation: modelRequestOperation('started') }, checkpoint(4));
 */
export function snapshot(
  revision: number,
  runOverrides: Partial<AgentRun> = {},
  assistant: AssistantCheckpoint | null = null,
): RunSnapshot {
  return { run: run(revision, runOverrides), assistant, revision };
}

/**
 * A durable `run-operation` event at `revision`.
 *
 * @example
 * operationEvent(6, modelRequestOperation('first-output'));
 */
export function operationEvent(revision: number, operation: RunOperation): RunOperationEvent {
  return { type: 'run-operation', runId: RUN_ID, revision, at: at(revision), operation };
}

/**
 * A durable `assistant-checkpoint` event at `revision`.
 *
 * @example
 * checkpointEvent(7, textMessage('Hello'));
 */
export function checkpointEvent(revision: number, message: UIMessage): AssistantCheckpointEvent {
  return {
    type: 'assistant-checkpoint',
    runId: RUN_ID,
    revision,
    at: at(revision),
    checkpoint: { revision, message },
  };
}

/**
 * A durable `assistant-append` event at `revision` extending the assistant write at
 * `baseRevision` with text `delta` (or the given chunks) of message `msg-1`.
 *
 * @example
 * appendEvent(6, 4, 'lo');
 */
export function appendEvent(
  revision: number,
  baseRevision: number,
  delta: string | AssistantAppendEvent['chunks'],
): AssistantAppendEvent {
  return {
    type: 'assistant-append',
    runId: RUN_ID,
    revision,
    at: at(revision),
    messageId: 'msg-1',
    baseRevision,
    chunks: typeof delta === 'string' ? [{ type: 'text-delta', id: 't', delta }] : delta,
  };
}

/**
 * A durable `run-status` event at `revision`; `change` follows from `status`.
 *
 * @example
 * statusEvent(4, 'failed', { code: 'provider_failure' });
 */
export function statusEvent(
  revision: number,
  status: RunStatusEvent['status'],
  failure: RunStatusEvent['failure'] = null,
): RunStatusEvent {
  const change = status === 'running' ? 'acquired' : status === 'queued' ? 'created' : status;
  return {
    type: 'run-status',
    runId: RUN_ID,
    revision,
    at: at(revision),
    change,
    status,
    owner: 'worker-a',
    fencingToken: 1,
    failure,
  };
}

/**
 * A live `run-delta` event carrying `chunk`, number `seq` on top of `baseRevision`.
 *
 * @example
 * delta(4, 1, { type: 'text-start', id: 't1' });
 */
export function delta(baseRevision: number, seq: number, chunk: UIMessageChunk): RunDeltaEvent {
  return { type: 'run-delta', runId: RUN_ID, baseRevision, seq, chunk };
}

/**
 * A live `text-delta` chunk for text part `id`.
 *
 * @example
 * textDelta(4, 2, ' world');
 */
export function textDelta(
  baseRevision: number,
  seq: number,
  text: string,
  id = 't1',
): RunDeltaEvent {
  return delta(baseRevision, seq, { type: 'text-delta', id, delta: text });
}

/** An assistant message whose one tool call waits for the user's approval. */
export const approvalMessage: UIMessage = {
  id: 'msg-1',
  role: 'assistant',
  parts: [
    {
      type: 'tool-runCommand',
      toolCallId: 'call-1',
      state: 'approval-requested',
      input: { cmd: 'ls' },
      approval: { id: 'approval-1' },
    },
  ] as UIMessage['parts'],
};
