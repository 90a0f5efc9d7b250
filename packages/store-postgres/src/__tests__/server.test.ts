import { afterAll, describe } from 'vitest';
import { busConformanceTests } from './bus-conformance.suite';
import { conformanceTests } from './driver-conformance.suite';
import { driverTests } from './postgres-driver.suite';
import { busTests } from './postgres-event-bus.suite';
import { recoveryTests } from './recovery.suite';
import { openServer, serverLabel, serverUnavailable, sharedDatabase } from './test-databases';
import { twoInstanceTests } from './two-instances.suite';

/** Every suite of the package on one database per test file (see `sharedDatabase`). */
describe.runIf(serverUnavailable === null)(serverLabel, () => {
  const database = sharedDatabase(openServer);
  afterAll(() => database.close());
  describe('createPostgresDriver', () => driverTests(database.open));
  describe('driver conformance', () => conformanceTests('server', database.open));
  describe('run recovery', () => recoveryTests('server', database.open));
  describe('createPostgresEventBus', () => busTests(database.open));
  describe('bus conformance', () => busConformanceTests('server', database.open));
  describe('two instances over one database', () => twoInstanceTests(database.open));
});
