import type {
  AgentRun,
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

/** Hand-made, schema-valid protocol values for table tests. */
export const RUN_ID = 'run-1';
export const T0 = '2026-12-02T10:00:00.000Z';

export const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

export function modelRequest(
  phase: RunOperation['phase'],
  options: { step?: number; startedAt?: string; firstOutputAt?: string; endedAt?: string } = {},
): RunOperation {
  const step = options.step ?? 0;
  const startedAt = options.startedAt ?? at(1);
  const operation: RunOperation = {
    id: `req-step-${step}`,
    kind: 'model-request',
    phase,
    step,
    startedAt,
  };
  if (phase !== 'started') operation.firstOutputAt = options.firstOutputAt ?? at(2);
  if (phase === 'completed' || phase === 'failed' || phase === 'cancelled') {
    operation.endedAt = options.endedAt ?? at(3);
  }
  return operation;
}

export function compaction(phase: 'started' | 'completed'): RunOperation {
  return phase === 'started'
    ? { id: 'compact-1', kind: 'compaction', phase, startedAt: at(1) }
    : {
        id: 'compact-1',
        kind: 'compaction',
        phase,
        startedAt: at(1),
        endedAt: at(2),
        outcome: 'compacted',
      };
}

export function run(revision: number, overrides: Partial<AgentRun> = {}): AgentRun {
  return {
    id: RUN_ID,
    status: 'running',
    owner: 'worker-a',
    fencingToken: 1,
    revision,
    lastOperation: null,
    failure: null,
    createdAt: T0,
    updatedAt: at(revision),
    ...overrides,
  };
}

export function textMessage(text: string, state: 'streaming' | 'done' = 'streaming'): UIMessage {
  return { id: 'msg-1', role: 'assistant', parts: [{ type: 'text', text, state }] };
}

export function checkpoint(
  revision: number,
  message: UIMessage = textMessage('Hel'),
): AssistantCheckpoint {
  return { revision, message };
}

export function snapshot(
  revision: number,
  runOverrides: Partial<AgentRun> = {},
  assistant: AssistantCheckpoint | null = null,
): RunSnapshot {
  return { run: run(revision, runOverrides), assistant, revision };
}

export function operationEvent(revision: number, operation: RunOperation): RunOperationEvent {
  return { type: 'run-operation', runId: RUN_ID, revision, at: at(revision), operation };
}

export function checkpointEvent(revision: number, message: UIMessage): AssistantCheckpointEvent {
  return {
    type: 'assistant-checkpoint',
    runId: RUN_ID,
    revision,
    at: at(revision),
    checkpoint: { revision, message },
  };
}

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

export function delta(baseRevision: number, seq: number, chunk: UIMessageChunk): RunDeltaEvent {
  return { type: 'run-delta', runId: RUN_ID, baseRevision, seq, chunk };
}

export const textDelta = (baseRevision: number, seq: number, text: string, id = 't1') =>
  delta(baseRevision, seq, { type: 'text-delta', id, delta: text });
