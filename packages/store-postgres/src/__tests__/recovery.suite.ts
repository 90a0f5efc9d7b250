import { describeRunRecovery } from '@runlight/runtime/test-kit';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresDriver } from '../postgres-driver';
import type { TestDatabase } from './test-databases';

/** The shared recovery suite, each test on a fresh schema of `database`. */
export function recoveryTests(name: string, open: () => Promise<TestDatabase>) {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });
  describeRunRecovery(name, async () => {
    const schema = await database.freshSchema();
    return { driver: createPostgresDriver({ client: database.client, schema }) };
  });
}
