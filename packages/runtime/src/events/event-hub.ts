import {
  isAssistantEvent,
  isTerminalStatus,
  type RunDeltaEvent,
  type RunEvent,
} from '@runlight/protocol';
import type { RunEventBus } from './run-event-bus';
import type { RunEventListener } from './run-event-source';

export type {
  RunEventListener,
  RunEventSource,
  RunEventSourceHealth,
} from './run-event-source';

interface Channel {
  listeners: Set<RunEventListener>;
  deltas: RunDeltaEvent[];
  /** The newest assistant write this channel knows of (from its events or its deltas' bases). */
  base: number;
  /**
   * The newest acquisition (fencing token) this channel knows of: a delta of an older one is a
   * previous owner's, published after a takeover (it was paused, not dead) — never buffered,
   * never delivered.
   */
  fencingToken: number;
}

/**
 * The in-process publish/subscribe hub of the runtime. A listener that throws is isolated:
 * the others still receive the event, and the error goes to `onListenerError`.
 */
export class RunEventHub implements RunEventBus {
  readonly #channels = new Map<string, Channel>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(options: { onListenerError?: (error: unknown) => void } = {}) {
    this.#onListenerError = options.onListenerError ?? (() => {});
  }

  publish(event: RunEvent): void {
    const channel = this.#channels.get(event.runId);
    if (event.type === 'run-delta') {
      const target = channel ?? this.#open(event.runId);
      const base = event.baseRevision;
      const token = event.fencingToken ?? target.fencingToken;
      // A delta on an older base is stale (the newer write holds it); one of an older
      // acquisition is a previous owner's, published after the takeover.
      if (base < target.base || token < target.fencingToken) return;
      // A delta on a newer base starts a new buffer; the old base's deltas are in its checkpoint.
      if (base > target.base || token > target.fencingToken) {
        target.base = base;
        target.fencingToken = token;
        target.deltas = [];
      }
      target.deltas.push(event);
    } else if (channel && isAssistantEvent(event)) {
      // An assistant write holds every delta before it (one on it may have overtaken it).
      if (channel.base < event.revision) {
        channel.deltas = [];
        channel.base = event.revision;
      }
    } else if (channel && event.type === 'run-status') {
      if (isTerminalStatus(event.status)) {
        // A terminal run streams no more.
        channel.deltas = [];
      } else if (event.change === 'acquired' && event.fencingToken > channel.fencingToken) {
        // A new owner (a takeover, a resume) writes before it streams: the deltas since the last
        // write are the previous owner's, never made durable. A reconnect must not replay them.
        channel.deltas = [];
        channel.fencingToken = event.fencingToken;
      }
      // (A new owner's delta that overtook its acquisition raised the token already: kept.)
      // A lease renewed or released leaves the deltas since the last write valid.
    }
    if (!channel) return;
    const listeners = channel.listeners;
    // A copy, so a listener subscribed during the dispatch sees the next event, not this one —
    // except for the common single listener, which needs none.
    if (listeners.size === 1) this.#deliver(listeners.values().next().value!, event);
    else if (listeners.size > 1)
      for (const listener of [...listeners]) this.#deliver(listener, event);
    // A delta was just buffered: its channel is not idle.
    if (event.type !== 'run-delta') this.#closeIfIdle(event.runId);
  }

  #deliver(listener: RunEventListener, event: RunEvent): void {
    try {
      listener(event);
    } catch (error) {
      this.#onListenerError(error);
    }
  }

  subscribe(runId: string, listener: RunEventListener): () => void {
    const channel = this.#channels.get(runId) ?? this.#open(runId);
    channel.listeners.add(listener);
    return () => {
      channel.listeners.delete(listener);
      this.#closeIfIdle(runId);
    };
  }

  liveDeltas(runId: string): readonly RunDeltaEvent[] {
    return this.#channels.get(runId)?.deltas ?? [];
  }

  /** Drops the run's delta buffer (its execution ended in this process). */
  endRun(runId: string): void {
    const channel = this.#channels.get(runId);
    if (!channel) return;
    channel.deltas = [];
    this.#closeIfIdle(runId);
  }

  /** Listeners currently subscribed to `runId` (to prove none leak). */
  listenerCount(runId: string): number {
    return this.#channels.get(runId)?.listeners.size ?? 0;
  }

  #open(runId: string): Channel {
    const channel: Channel = { listeners: new Set(), deltas: [], base: 0, fencingToken: 0 };
    this.#channels.set(runId, channel);
    return channel;
  }

  #closeIfIdle(runId: string): void {
    const channel = this.#channels.get(runId);
    if (channel && channel.listeners.size === 0 && channel.deltas.length === 0) {
      this.#channels.delete(runId);
    }
  }
}
