/** Clock and records shared by the PostgreSQL driver suites. */
import type { RunOperation, UIMessage } from '@runlight/protocol';

export const clock = () => {
  let tick = Date.parse('2026-12-02T10:00:00.000Z');
  return () => {
    tick += 1_000;
    return new Date(tick);
  };
};

export const started = (step: number): RunOperation => ({
  id: `request-step-${step}`,
  kind: 'model-request',
  phase: 'started',
  step,
  startedAt: '2026-12-02T10:00:00.000Z',
});

export const completed = (step: number): RunOperation => ({
  ...started(step),
  phase: 'completed',
  endedAt: '2026-12-02T10:00:09.000Z',
});

export const assistant = (text: string): UIMessage => ({
  id: 'assistant-1',
  role: 'assistant',
  parts: [{ type: 'text', text }],
});
