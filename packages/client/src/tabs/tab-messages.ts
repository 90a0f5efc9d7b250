import type { HubFrame } from './run-hub';

/**
 * What the tabs of one group say to each other over their `BroadcastChannel`. Followers ask
 * (`watch`, `unwatch`); the leading tab announces itself (`leader`) and answers each watch,
 * addressed `to` the asking tab, under the watch's generation `gen` (a watch asked again —
 * after a leader change — ignores what an earlier leader still had in flight).
 */
export type TabMessage =
  | { kind: 'watch'; tab: string; watch: string; gen: number; runId: string; cursor: string }
  | { kind: 'unwatch'; tab: string; watch: string }
  | { kind: 'leader'; tab: string }
  | { kind: 'open'; to: string; watch: string; gen: number }
  | {
      kind: 'answer';
      to: string;
      watch: string;
      gen: number;
      status: number;
      contentType: string | null;
      body: string;
    }
  | { kind: 'frames'; to: string; watch: string; gen: number; frames: HubFrame[] }
  | { kind: 'end'; to: string; watch: string; gen: number; broken: boolean };

const KINDS = new Set(['watch', 'unwatch', 'leader', 'open', 'answer', 'frames', 'end']);

/**
 * The message, or `null` for anything else on the channel (another version of this library,
 * another library using the same name). Only tabs of this origin can post here; the shape is
 * checked so a stray post cannot throw inside the listener.
 */
export function readTabMessage(data: unknown): TabMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const message = data as { kind?: unknown; v?: unknown };
  if (message.v !== 1 || typeof message.kind !== 'string' || !KINDS.has(message.kind)) return null;
  return data as TabMessage;
}
