import { TimestampSchema, UIMessageSchema } from '@runlight/protocol';
import { z } from 'zod';
import { StoreRecordError } from '../errors/store-record-error';
import { assertRunId } from './assert-run-id';
import { assertChatId, ChatIdSchema } from './chat-id-guard';
import type { AgentRuntimeDriver, StoredRunInput } from './driver/driver';
import type { StoreClock } from './store-clock';
import { issuesOf } from './zod-issues';

/** Most messages one run input may hold. */
export const MAX_RUN_INPUT_MESSAGES = 500;
/** Most bytes (UTF-8 JSON) of one run input's messages. */
export const MAX_RUN_INPUT_BYTES = 1024 * 1024;

export const RunInputSchema = z.strictObject({
  runId: z.string().min(1),
  chatId: z.nullable(ChatIdSchema),
  messages: z.array(UIMessageSchema).max(MAX_RUN_INPUT_MESSAGES),
  createdAt: TimestampSchema,
});

/** The conversation a run was started with (`startRun({ conversation })`). */
export type RunInput = z.infer<typeof RunInputSchema>;

/** One run of a chat, newest first in `listChatRuns`. */
export interface ChatRun {
  runId: string;
  createdAt: string;
}

const ChatRunSchema = z.strictObject({ runId: z.string().min(1), createdAt: TimestampSchema });

/**
 * The store's run inputs (present when the driver has the capability): the validated, bounded
 * conversation each run was started with, and the runs of each chat.
 */
export interface RunInputs {
  /** Stores the run's input once; `false` when it has one. Throws `TypeError` past the bounds. */
  save(input: Omit<RunInput, 'createdAt'>): Promise<boolean>;
  /** The run's input, or `null` when none was stored. */
  get(runId: string): Promise<RunInput | null>;
  /**
   * The chat's runs, newest first, at most `limit` (default 20, at most 100). An id that is not
   * a valid chat id (the rules of a run id) rejects with `InvalidChatIdError`, on every driver.
   */
  listChatRuns(chatId: string, options?: { limit?: number }): Promise<ChatRun[]>;
}

function parsed<T>(schema: z.ZodType<T>, runId: string, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new StoreRecordError(runId, 'run input', issuesOf(result.error));
}

/** The run inputs of `driver`, or `undefined` when it does not store them. */
export function runInputsOf(driver: AgentRuntimeDriver, now: StoreClock): RunInputs | undefined {
  const { saveRunInput, readRunInput, listChatRuns } = driver;
  if (!saveRunInput || !readRunInput || !listChatRuns) return undefined;
  return {
    async save(input) {
      assertRunId(input.runId);
      if (input.chatId !== null) assertChatId(input.chatId);
      const checked = RunInputSchema.safeParse({
        ...input,
        createdAt: (await now()).toISOString(),
      });
      if (!checked.success) {
        const issue = checked.error.issues[0];
        throw new TypeError(
          `Run ${input.runId}: its input ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`,
        );
      }
      const bytes = new TextEncoder().encode(JSON.stringify(checked.data.messages)).byteLength;
      if (bytes > MAX_RUN_INPUT_BYTES) {
        throw new TypeError(
          `Run ${input.runId}: its input messages are ${bytes} bytes, over ${MAX_RUN_INPUT_BYTES}`,
        );
      }
      return saveRunInput.call(driver, input.runId, checked.data as StoredRunInput);
    },
    async get(runId) {
      assertRunId(runId);
      const row = await readRunInput.call(driver, runId);
      return row === null || row === undefined ? null : parsed(RunInputSchema, runId, row);
    },
    async listChatRuns(chatId, options = {}) {
      assertChatId(chatId);
      const limit = Math.min(100, Math.max(1, Math.floor(options.limit ?? 20)));
      const rows = await listChatRuns.call(driver, chatId, { limit });
      return rows.map((row) => parsed(ChatRunSchema, `(chat ${chatId})`, row));
    },
  };
}
