import type { AgentRuntime, ResolveRun, StartRunOptions } from '@runlight/runtime';
import type { StoredRunEvent } from '@runlight/runtime/driver';
import { scriptedModel } from '@runlight/runtime/testing';
import { isStepCount, type ModelMessage, tool } from 'ai';
import { z } from 'zod';
import type { DemoSettings, ScenarioId } from '../src/scenario-catalog';
import { abortableSleep } from './abortable-sleep';
import { decidingModel, gatedModel, PROVIDER_SECRET } from './demo-models';
import { historyRunOptions } from './history-scenario';
import { workerCrashes } from './worker-crash-scenario';

/** What a scenario may use to run (and to break) a run. */
export interface ScenarioWorld {
  /** worker-a: the default runtime (30 s lease). */
  worker: AgentRuntime;
  /** worker-a with a short lease, for the lease-stolen scenario. */
  shortLeaseWorker: AgentRuntime;
  shortLeaseMs: number;
  /** worker-b: a second runtime instance on the same store. */
  otherWorker: AgentRuntime;
  /** Remembers which runtime executes a run (for cancel and approvals). */
  assign(runId: string, runtime: AgentRuntime): void;
  /** Calls `listener` once the run's model output begins (its first `first-output`). */
  onFirstOutput(runId: string, listener: () => void): void;
  /** Next compare-and-set of the run recording first output is lost to "another writer". */
  loseFirstOutputWrite(runId: string): void;
  /** worker-a's store calls for the run hang for `ms`. */
  partitionWorker(runId: string, ms: number): void;
  /** worker-a with a short lease whose store calls can be cut off for good (a crash). */
  crashingWorker: AgentRuntime;
  crashingLeaseMs: number;
  /** After the write matching `when` is stored, worker-a never hears from the store again. */
  crashWorkerAfter(runId: string, when: (events: readonly StoredRunEvent[]) => boolean): void;
  /** worker-b's recovery loop takes the run over once its lease expired, continuing it so. */
  recoverWith(runId: string, resolve: ResolveRun): void;
  /** A server-side note on the run (shown in the page's "Server notes"). */
  note(runId: string, text: string): void;
  /**
   * Waits while a test holds the run at `point` (`DemoGates`); `undefined` when nobody does,
   * so the scenario keeps its own timing.
   */
  gate(runId: string, point: string, signal?: AbortSignal): Promise<void> | undefined;
  /** Whether a test holds the run at `point` (then the test, not a delay, decides how long). */
  holds(runId: string, point: string): boolean;
  /** setTimeout that the server clears when it closes. */
  later(ms: number, callback: () => void): void;
}

const user = (content: string): ModelMessage[] => [{ role: 'user', content }];

const sleep = abortableSleep;

const weather = tool({
  description: 'Current weather of a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    await sleep(700);
    const table: Record<string, { sky: string; celsius: number }> = {
      Oslo: { sky: 'snow showers', celsius: -3 },
      Lisbon: { sky: 'sunny', celsius: 19 },
    };
    return { city, ...(table[city] ?? { sky: 'cloudy', celsius: 11 }) };
  },
});

const deleteFiles = tool({
  description: 'Deletes files under a path',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => {
    await sleep(400);
    return { path, deleted: 42 };
  },
});

const LONG_ANSWER =
  'Durable run facts mean the page you are reading is rebuilt from the store: the operation ' +
  'record says when the model request started and when its first output arrived, and the ' +
  'assistant checkpoint holds the message so far. Reload the page, drop the connection or ' +
  'open a fresh client — the activity and its original times come back the same.';

type Starter = (runId: string, settings: DemoSettings, world: ScenarioWorld) => void;

function start(world: ScenarioWorld, runtime: AgentRuntime, options: StartRunOptions): void {
  world.assign(options.runId, runtime);
  // Failures are part of the run record; the handle only rejects when acquisition fails.
  runtime.startRun(options).done.catch(() => {});
}

/** Where a test may hold `quick-answer`, by content part of its one model request. */
const QUICK_ANSWER_GATES = new Map([
  [8, 'mid-text'],
  [18, 'late-text'],
]);

/** How each scenario starts its run on the demo's runtimes. */
export const SCENARIO_RUNS: Record<ScenarioId, Starter> = {
  // A test may hold the last step's compaction (`last-compaction`).
  'history-retry': (runId, settings, world) =>
    start(
      world,
      world.worker,
      historyRunOptions(runId, settings, (signal) => world.gate(runId, 'last-compaction', signal)),
    ),

  // A test may hold it half way through the text (`mid-text`) and near its end (`late-text`).
  'quick-answer': (runId, { tokenMs }, world) => {
    const model = scriptedModel([
      {
        firstTokenMs: 300,
        tokenMs,
        text:
          'Hello! Runlight shows what this run is doing: waiting for the model, streaming, ' +
          'running tools or waiting for you. Every fact comes from the store, so a reload ' +
          'shows the same thing.',
      },
    ]);
    start(world, world.worker, {
      runId,
      model: gatedModel(model, (call, part, signal) =>
        call === 0 && QUICK_ANSWER_GATES.has(part)
          ? world.gate(runId, QUICK_ANSWER_GATES.get(part)!, signal)
          : undefined,
      ),
      messages: user('Say hello.'),
    });
  },

  // A test may hold the provider wait for as long as it looks (`first-token`).
  'slow-first-token': (runId, { tokenMs }, world) => {
    const model = scriptedModel([
      {
        firstTokenMs: world.holds(runId, 'first-token') ? 0 : 8000,
        tokenMs,
        reasoning: 'The visitor wants to see a slow provider. Waiting shows the elapsed time.',
        text: LONG_ANSWER,
      },
    ]);
    start(world, world.worker, {
      runId,
      model: gatedModel(model, (call, part, signal) =>
        call === 0 && part === 0 ? world.gate(runId, 'first-token', signal) : undefined,
      ),
      messages: user('Explain durable run facts.'),
    });
  },

  'tool-steps': (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: scriptedModel([
        {
          firstTokenMs: 500,
          tokenMs,
          text: 'Let me check Oslo first.',
          toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }],
        },
        {
          firstTokenMs: 700,
          tokenMs,
          toolCalls: [{ toolName: 'weather', input: { city: 'Lisbon' } }],
        },
        {
          firstTokenMs: 600,
          tokenMs,
          text: 'Oslo has snow showers at -3 °C; Lisbon is sunny at 19 °C. Pack for both.',
        },
      ]),
      messages: user('Compare the weather in Oslo and Lisbon.'),
      tools: { weather },
      stopWhen: isStepCount(5),
    });
  },

  approval: (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: decidingModel({
        first: scriptedModel([
          {
            firstTokenMs: 400,
            tokenMs,
            text: 'I will clean the build folder.',
            toolCalls: [{ toolName: 'deleteFiles', input: { path: 'build/' } }],
          },
        ]),
        approved: scriptedModel([
          { firstTokenMs: 500, tokenMs, text: 'Done: 42 files under build/ are deleted.' },
        ]),
        denied: scriptedModel([
          { firstTokenMs: 500, tokenMs, text: 'Understood, I left build/ untouched.' },
        ]),
      }),
      messages: user('Clean up the build folder.'),
      tools: { deleteFiles },
      toolApproval: { deleteFiles: 'user-approval' },
      stopWhen: isStepCount(5),
    });
  },

  'retry-compaction-approval': (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: decidingModel({
        firstCalls: 2,
        first: scriptedModel([
          {
            firstTokenMs: 400,
            error: { at: 'request', retryAfterMs: 500, message: '503 upstream busy' },
          },
          {
            firstTokenMs: 500,
            tokenMs,
            text: 'I will clean the build folder.',
            toolCalls: [{ toolName: 'deleteFiles', input: { path: 'build/' } }],
          },
        ]),
        approved: scriptedModel([
          { firstTokenMs: 500, tokenMs, text: 'Done: 42 files under build/ are deleted.' },
        ]),
        denied: scriptedModel([
          { firstTokenMs: 500, tokenMs, text: 'Understood, I left build/ untouched.' },
        ]),
      }),
      messages: user('Clean up the build folder.'),
      tools: { deleteFiles },
      toolApproval: { deleteFiles: 'user-approval' },
      stopWhen: isStepCount(5),
      // The first step's context is summarised; later steps fit.
      compact: async ({ step, signal }) => {
        await sleep(600, signal);
        if (step > 0) return { status: 'not_needed' };
        return {
          status: 'compacted',
          messages: user('Summary so far: the user wants the build folder cleaned up.'),
        };
      },
    });
  },

  compaction: (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: scriptedModel([
        {
          firstTokenMs: 400,
          tokenMs,
          text: 'Looking it up.',
          toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }],
        },
        { firstTokenMs: 400, tokenMs, text: 'From the summary: Oslo has snow showers at -3 °C.' },
      ]),
      messages: user('What is the weather in Oslo?'),
      tools: { weather },
      stopWhen: isStepCount(5),
      // Step 0 fits the context; step 1 pretends it does not and summarises. A test may hold
      // the first compaction (`compaction`).
      compact: async ({ step, signal }) => {
        await ((step === 0 ? world.gate(runId, 'compaction', signal) : undefined) ??
          sleep(1500, signal));
        if (step === 0) return { status: 'not_needed' };
        return {
          status: 'compacted',
          messages: user('Summary so far: the user asked for the weather in Oslo; looked up.'),
        };
      },
    });
  },

  'provider-failure': (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: scriptedModel([
        {
          firstTokenMs: 800,
          tokenMs,
          text: 'This answer starts well but the provider will break off',
          error: {
            at: 5,
            message: `502 from upstream: invalid credentials Authorization: Bearer ${PROVIDER_SECRET} for prompt "Summarise"`,
          },
        },
      ]),
      messages: user('Summarise the report.'),
      maxRetries: 0,
    });
  },

  'storage-conflict': (runId, { tokenMs }, world) => {
    world.loseFirstOutputWrite(runId);
    start(world, world.worker, {
      runId,
      model: scriptedModel([{ firstTokenMs: 1000, tokenMs, text: LONG_ANSWER }]),
      messages: user('Explain durable run facts.'),
    });
  },

  'lease-stolen': (runId, { tokenMs }, world) => {
    const partitionMs = world.shortLeaseMs + 2500;
    world.assign(runId, world.shortLeaseWorker);
    world.shortLeaseWorker
      .startRun({
        runId,
        model: scriptedModel([{ firstTokenMs: 600, tokenMs, text: LONG_ANSWER }]),
        messages: user('Explain durable run facts.'),
      })
      .done.then(
        (run) => {
          // The new owner writes: worker-a's execution ended without writing anything more.
          if (run.owner !== 'worker-a-short-lease') {
            world.note(runId, 'worker-a: ownership_lost — its execution stopped without writing');
          }
        },
        () => {},
      );
    world.onFirstOutput(runId, () => {
      world.later(800, () => {
        world.partitionWorker(runId, partitionMs);
        world.note(runId, `worker-a is cut off from the store for ${partitionMs} ms`);
        // worker-b may acquire once worker-a's lease has run out.
        world.later(world.shortLeaseMs + 300, () => takeOver(runId, tokenMs, world, 0));
      });
    });
  },

  'worker-crashes': workerCrashes,

  'cancel-during-wait': (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: scriptedModel([{ firstTokenMs: 10_000, tokenMs, text: LONG_ANSWER }]),
      messages: user('Explain durable run facts.'),
    });
    world.later(2500, () => {
      world.note(runId, 'cancelled while waiting for the model');
      world.worker.cancelRun(runId);
    });
  },

  'cancel-during-stream': (runId, { tokenMs }, world) => {
    start(world, world.worker, {
      runId,
      model: scriptedModel([{ firstTokenMs: 500, tokenMs, text: LONG_ANSWER }]),
      messages: user('Explain durable run facts.'),
    });
    world.onFirstOutput(runId, () => {
      world.later(Math.max(600, tokenMs * 12), () => {
        world.note(runId, 'cancelled while streaming');
        world.worker.cancelRun(runId);
      });
    });
  },
};

/** worker-b acquires the run once worker-a's lease expired, and finishes the answer. */
function takeOver(runId: string, tokenMs: number, world: ScenarioWorld, attempt: number): void {
  world.assign(runId, world.otherWorker);
  world.otherWorker
    .startRun({
      runId,
      model: scriptedModel([
        {
          firstTokenMs: 500,
          tokenMs,
          text: 'worker-b here: I acquired the run after worker-a lost its lease, and finished it.',
        },
      ]),
      messages: user('Explain durable run facts.'),
    })
    .done.then(
      (run) => {
        world.note(
          runId,
          "worker-b continued from worker-a's last checkpoint: text worker-a streamed after it was never stored",
        );
        world.note(runId, `worker-b ended the run ${run.status}`);
      },
      () => {
        // The lease may still be held for a moment (clock and write timing): try again shortly.
        if (attempt < 20) world.later(250, () => takeOver(runId, tokenMs, world, attempt + 1));
        else world.note(runId, 'worker-b could not acquire the run');
      },
    );
}
