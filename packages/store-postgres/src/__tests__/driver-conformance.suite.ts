import { describeDriverConformance } from '@runlight/runtime/test-kit';
import { afterAll, beforeAll } from 'vitest';
import { runlightTables } from '../migrate';
import { createPostgresDriver } from '../postgres-driver';
import { toSqlClient } from '../sql-client';
import type { TestDatabase } from './test-databases';

/** The shared store conformance suite, each test on a fresh schema of `database`. */
export function conformanceTests(name: string, open: () => Promise<TestDatabase>) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });
  describeDriverConformance(name, async () => {
    const schema = await database.freshSchema();
    const { runs, events } = runlightTables({ schema });
    return {
      driver: createPostgresDriver({ client: database.client, schema }),
      async corrupt(runId, record) {
        await toSqlClient(database.client).query({
          text: `UPDATE ${runs} SET record = $2::json, assistant_revision = NULL WHERE id = $1`,
          values: [runId, JSON.stringify(record)],
        });
      },
      async corruptEvent(runId, revision, event) {
        await toSqlClient(database.client).query({
          text: `UPDATE ${events} SET event = $3::json WHERE run_id = $1 AND revision = $2`,
          values: [runId, revision, JSON.stringify(event)],
        });
      },
    };
  });
}
