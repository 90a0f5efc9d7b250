import type { UIMessage } from '@runlight/protocol';
import type { StoredRunEvent } from '@runlight/runtime/driver';
import { scriptedModel } from '@runlight/runtime/testing';
import type { ModelMessage } from 'ai';
import type { DemoSettings } from '../src/scenario-catalog';
import type { ScenarioWorld } from './scenario-runs';

/** The answer both workers write between them: worker-a the first part, worker-b the rest. */
export const CRASH_ANSWER =
  'A worker can die at any moment: a deploy, an out-of-memory kill, a lost machine. The run ' +
  'record says who holds the run and until when; once that lease runs out with nobody ' +
  'renewing it, the page says the worker stopped responding, and another worker’s recovery ' +
  'loop takes the run over from its last checkpoint and finishes the answer.';

/** worker-a dies after the checkpoint that holds at least this much of the answer. */
const CRASH_AT_CHARS = 90;

const messages: ModelMessage[] = [{ role: 'user', content: 'What happens when a worker dies?' }];

const textOf = (message: UIMessage | null | undefined) =>
  (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * "Worker crashes": worker-a (a 2.5 s lease) streams the answer and is killed right after a
 * checkpoint reached the store — no error, no further word, its execution frozen. Its lease
 * runs out; the page shows the run stalled; worker-b's recovery loop takes it over, records
 * worker-a's model request failed and continues the checkpointed message with the rest of the
 * answer, so the text reads on without a duplicate or a gap.
 */
export function workerCrashes(runId: string, { tokenMs }: DemoSettings, world: ScenarioWorld) {
  world.assign(runId, world.crashingWorker);
  // The record holds only a pointer to the message: count the text the appends carried.
  let written = 0;
  world.crashWorkerAfter(runId, (events: readonly StoredRunEvent[]) => {
    for (const event of events) {
      if (event.type === 'assistant-checkpoint') written = textOf(event.checkpoint.message).length;
      if (event.type !== 'assistant-append') continue;
      for (const chunk of event.chunks)
        if (chunk.type === 'text-delta') written += chunk.delta.length;
    }
    return written >= CRASH_AT_CHARS;
  });
  world.recoverWith(runId, (_run, { message }) => {
    const written = textOf(message);
    world.note(
      runId,
      `worker-b took the run over after worker-a's lease expired; it continues after ${written.length} characters`,
    );
    return {
      model: scriptedModel([
        { firstTokenMs: 600, tokenMs, text: CRASH_ANSWER.slice(written.length) },
      ]),
      messages,
    };
  });
  world.onFirstOutput(runId, () =>
    world.note(
      runId,
      `worker-a streams; it will be killed after about ${CRASH_AT_CHARS} characters`,
    ),
  );
  world.crashingWorker
    .startRun({
      runId,
      model: scriptedModel([{ firstTokenMs: 400, tokenMs, text: CRASH_ANSWER }]),
      messages,
    })
    .done.catch(() => {});
}
