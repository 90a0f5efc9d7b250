import type {
  AssistantCheckpoint,
  DurableRunEvent,
  RunDeltaEvent,
  RunEvent,
  RunOperation,
  RunSnapshot,
  UIMessage,
  UIMessageChunk,
} from '@runlight/protocol';
import type { StoredRun } from '@runlight/runtime';
import {
  type Mutation,
  reduceAcquireRun,
  reduceAppendAssistant,
  reduceCommitTerminal,
  reduceCreateRun,
  reduceRecordRunOperation,
  reduceSaveAssistantCheckpoint,
  type TerminalCommit,
} from '@runlight/runtime/driver';

/**
 * A server in miniature for property tests: the runtime's reference reducer is the store, an
 * array the event log, and `resume` answers a cursor the way the SSE handler does (durable
 * events after R, then the live deltas still buffered after B:S, or `reset`).
 */
export class ServerSim {
  readonly runId: string;
  record: StoredRun | null = null;
  readonly log: DurableRunEvent[] = [];
  readonly snapshots = new Map<number, RunSnapshot>();
  /** Live deltas since the last checkpoint (cleared by a checkpoint and a terminal status). */
  buffer: RunDeltaEvent[] = [];
  /** Every event published, in order. */
  readonly published: RunEvent[] = [];
  /** The assistant message as the model produced it so far (the truth a client must show). */
  message: UIMessage = { id: 'msg-1', role: 'assistant', parts: [] };
  /** The message as of the last assistant write, as the store materialises it. */
  assistant: AssistantCheckpoint | null = null;
  /** The chunks published since the last assistant write (what the next append holds). */
  unwritten: UIMessageChunk[] = [];
  #now: () => Date;

  constructor(runId: string, now: () => Date) {
    this.runId = runId;
    this.#now = now;
  }

  snapshot(): RunSnapshot {
    const record = this.record!;
    return { run: record.run, assistant: this.assistant, revision: record.run.revision };
  }

  create(): void {
    this.#apply(reduceCreateRun(this.record, { runId: this.runId }, this.#now()));
  }

  /** The owner that writes: `worker-a` unless another one took the run over. */
  owner = 'worker-a';

  /**
   * `owner` acquires the run. The default lease outlives any test clock (the merge property
   * compares activities at the real time); pass `leaseMs` to let it expire.
   */
  acquire(owner = 'worker-a', leaseMs = 100 * 365 * 24 * 3_600_000): void {
    this.#apply(reduceAcquireRun(this.record!, { owner, leaseMs }, this.#now()));
    this.owner = owner;
  }

  /** The previous owner's last delta: a zombie (paused, not dead) owner numbers on from it. */
  #zombie: RunDeltaEvent | null = null;

  /**
   * `owner` takes the run over (its lease expired by the sim's clock): the dead owner's
   * unwritten deltas are lost and its streaming text parts are closed. The new owner's first
   * write must then be the whole message (`checkpoint(true)`, the runtime's `rebase`), which
   * its deltas are numbered on.
   */
  takeOver(owner: string, leaseMs?: number): void {
    this.#zombie = this.buffer.at(-1) ?? {
      type: 'run-delta',
      runId: this.runId,
      baseRevision: this.record!.assistant?.revision ?? 0,
      seq: 0,
      fencingToken: this.record!.run.fencingToken,
      chunk: { type: 'start-step' },
    };
    this.acquire(owner, leaseMs);
    const base: UIMessage = this.assistant?.message ?? {
      id: this.message.id,
      role: 'assistant',
      parts: [],
    };
    this.message = {
      ...structuredClone(base),
      parts: base.parts.map((part) =>
        (part.type === 'text' || part.type === 'reasoning') && part.state === 'streaming'
          ? { ...part, state: 'done' as const }
          : structuredClone(part),
      ),
    };
    this.unwritten = [];
  }

  /**
   * A delta the previous owner publishes after the takeover (it was paused, not dead): on its
   * old base, numbered on from its last one; never buffered, never part of the answer.
   */
  zombieDelta(chunk: UIMessageChunk): void {
    const last = this.#zombie!;
    const event: RunDeltaEvent = { ...last, seq: last.seq + 1, chunk };
    this.#zombie = event;
    this.published.push(event);
  }

  operation(operation: RunOperation): void {
    this.#apply(reduceRecordRunOperation(this.record!, this.#guard(), operation, this.#now()));
  }

  /**
   * An assistant write: an append of the chunks since the last write, or (`consolidate`, or
   * nothing to append) the whole message.
   */
  checkpoint(consolidate = false): void {
    const message = structuredClone(this.message);
    const chunks = this.unwritten;
    const mutation =
      consolidate || chunks.length === 0
        ? reduceSaveAssistantCheckpoint(this.record!, this.#guard(), message, this.#now())
        : reduceAppendAssistant(
            this.record!,
            this.#guard(),
            { messageId: message.id, baseRevision: this.assistant?.revision ?? 0, chunks },
            this.#now(),
          );
    this.unwritten = [];
    this.assistant = { message, revision: mutation.record.run.revision };
    this.#apply(mutation);
  }

  terminal(terminal: TerminalCommit): void {
    const result = reduceCommitTerminal(this.record!, this.#guard(), terminal, this.#now());
    if ('duplicate' in result) return;
    this.#apply(result);
  }

  /** Publishes one live delta and applies it to the true message. */
  delta(chunk: UIMessageChunk): void {
    const base = this.record!.assistant?.revision ?? 0;
    this.unwritten.push(chunk);
    const last = this.buffer.at(-1);
    const seq = last && last.baseRevision === base ? last.seq + 1 : 1;
    const event: RunDeltaEvent = {
      type: 'run-delta',
      runId: this.runId,
      baseRevision: base,
      seq,
      fencingToken: this.record!.run.fencingToken,
      chunk,
    };
    this.buffer.push(event);
    this.published.push(event);
    const parts = this.message.parts;
    if (chunk.type === 'start-step') parts.push({ type: 'step-start' });
    if (chunk.type === 'text-start') parts.push({ type: 'text', text: '', state: 'streaming' });
    const lastPart = parts.at(-1);
    if (lastPart?.type === 'text' && chunk.type === 'text-delta') lastPart.text += chunk.delta;
    if (lastPart?.type === 'text' && chunk.type === 'text-end') lastPart.state = 'done';
    if (chunk.type === 'tool-input-available') {
      parts.push({
        type: `tool-${chunk.toolName}`,
        toolCallId: chunk.toolCallId,
        state: 'input-available',
        input: chunk.input,
      } as UIMessage['parts'][number]);
    }
    if (chunk.type === 'tool-output-available') {
      const index = parts.findIndex(
        (part) => 'toolCallId' in part && part.toolCallId === chunk.toolCallId,
      );
      parts[index] = {
        ...parts[index]!,
        state: 'output-available',
        output: chunk.output,
      } as UIMessage['parts'][number];
    }
  }

  /**
   * What an SSE connection resuming from `cursor` receives now: the durable events after R,
   * then the buffered deltas after B:S — or `reset` when they are gone.
   */
  resume(cursor: string): RunEvent[] | 'reset' {
    const [r, b, s] = cursor.split(':').map(Number) as [number, number?, number?];
    const current = this.record!.run.revision;
    if (r > current) return 'reset';
    const events: RunEvent[] = this.log.filter((event) => event.revision > r);
    if (this.record!.run.status !== 'running' && this.record!.run.status !== 'queued')
      return events;
    const base = this.record!.assistant?.revision ?? 0;
    let after = 0;
    // An acquisition after R is replayed first and ends the client's overlay (rule 3.5).
    const reacquired = events.some(
      (event) => event.type === 'run-status' && event.change === 'acquired',
    );
    if (b !== undefined && s !== undefined && !reacquired) {
      if (b > base) return 'reset';
      if (b === base) {
        if (!this.buffer.some((d) => d.seq === s)) return 'reset';
        after = s;
      }
    }
    return [...events, ...this.buffer.filter((d) => d.seq > after)];
  }

  #guard() {
    const run = this.record!.run;
    return { owner: this.owner, fencingToken: run.fencingToken, expectedRevision: run.revision };
  }

  #apply(mutation: Mutation): void {
    this.record = mutation.record;
    this.log.push(mutation.event);
    this.published.push(mutation.event);
    this.snapshots.set(mutation.record.run.revision, this.snapshot());
    const { event } = mutation;
    if (event.type === 'assistant-checkpoint' || event.type === 'assistant-append') {
      this.buffer = [];
    }
    if (event.type === 'run-status' && event.change !== 'acquired') this.buffer = [];
    // The hub: an acquisition ends the previous owner's deltas.
    if (event.type === 'run-status' && event.change === 'acquired') this.buffer = [];
  }
}
