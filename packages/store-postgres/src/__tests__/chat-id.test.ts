import { createAgentRuntimeStore, InvalidChatIdError } from '@runlight/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDriver } from '../postgres-driver';
import { openServer, serverLabel, serverUnavailable, sharedDatabase } from './test-databases';

/**
 * A chat id reaches SQL from a client's request (`createChatRoutes`): one with `\u0000` used to
 * answer a raw PostgreSQL error (`invalid byte sequence`), a 500. It is refused typed first.
 */
describe.runIf(serverUnavailable === null)(`chat ids on ${serverLabel}`, () => {
  const database = sharedDatabase(openServer);
  afterAll(() => database.close());

  it('refuses a chat id with \\u0000 with InvalidChatIdError in every call, not a database error', async () => {
    const opened = await database.open();
    const schema = await opened.freshSchema();
    const store = createAgentRuntimeStore(createPostgresDriver({ client: opened.client, schema }));
    const inputs = store.runInputs!;
    for (const attempt of [
      inputs.listChatRuns('chat\u0000x'),
      inputs.save({ runId: 'run-1', chatId: 'chat\u0000x', messages: [] }),
    ]) {
      const error = await attempt.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(InvalidChatIdError.isInstance(error)).toBe(true);
    }
    // A valid id still round-trips.
    await inputs.save({ runId: 'run-2', chatId: 'chat-1', messages: [] });
    expect((await inputs.listChatRuns('chat-1')).map((run) => run.runId)).toEqual(['run-2']);
  });
});
