import type {
  AgentRun,
  AssistantCheckpoint,
  RunEvent,
  RunOperation,
  RunSnapshot,
  RunStatusEvent,
  UIMessage,
} from '@runlight/protocol';

/** Schema-valid protocol values for the React tests (times are offsets from T0, in seconds). */
export const RUN_ID = 'run-1';
export const T0 = '2026-12-02T10:00:00.000Z';
export const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

export function modelRequest(
  phase: RunOperation['phase'],
  times: { startedAt?: number; firstOutputAt?: number; endedAt?: number } = {},
): RunOperation {
  const operation: RunOperation = {
    id: 'req-step-0',
    kind: 'model-request',
    phase,
    step: 0,
    startedAt: at(times.startedAt ?? 1),
  };
  if (phase !== 'started') operation.firstOutputAt = at(times.firstOutputAt ?? 2);
  if (phase === 'completed' || phase === 'failed' || phase === 'cancelled') {
    operation.endedAt = at(times.endedAt ?? 3);
  }
  return operation;
}

export function compaction(startedAt = 1): RunOperation {
  return {
    id: 'compact-step-0',
    kind: 'compaction',
    phase: 'started',
    step: 0,
    startedAt: at(startedAt),
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

export function snapshot(
  revision: number,
  overrides: Partial<AgentRun> = {},
  assistant: AssistantCheckpoint | null = null,
): RunSnapshot {
  return { run: run(revision, overrides), assistant, revision };
}

export const textMessage = (text: string): UIMessage => ({
  id: 'msg-1',
  role: 'assistant',
  parts: [{ type: 'text', text, state: 'streaming' }],
});

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

export const operationEvent = (revision: number, operation: RunOperation): RunEvent => ({
  type: 'run-operation',
  runId: RUN_ID,
  revision,
  at: at(revision),
  operation,
});

export const checkpointEvent = (revision: number, message: UIMessage): RunEvent => ({
  type: 'assistant-checkpoint',
  runId: RUN_ID,
  revision,
  at: at(revision),
  checkpoint: { revision, message },
});

export const statusEvent = (
  revision: number,
  status: RunStatusEvent['status'],
  failure: RunStatusEvent['failure'] = null,
): RunEvent => ({
  type: 'run-status',
  runId: RUN_ID,
  revision,
  at: at(revision),
  change: status === 'running' ? 'acquired' : status === 'queued' ? 'created' : status,
  status,
  owner: 'worker-a',
  fencingToken: 1,
  failure,
});

export const textDelta = (baseRevision: number, seq: number, delta: string): RunEvent => ({
  type: 'run-delta',
  runId: RUN_ID,
  baseRevision,
  seq,
  chunk: { type: 'text-delta', id: 't1', delta },
});
