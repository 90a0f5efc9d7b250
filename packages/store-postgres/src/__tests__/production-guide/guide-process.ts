/**
 * One process of the production guide, run as written: `node --import tsx guide-process.ts
 * <snippet file>` imports a file extracted from docs/production.md unchanged, after defining the
 * names the guide leaves to the reader — `model` (a fresh `continuationModel` per read), `tools`,
 * and the session helpers of its access policy (`Authorization: Bearer reader` is a signed-in
 * user who may do anything; no header is nobody). Configuration comes from the environment, as
 * the guide says (`DATABASE_URL`, `RUNLIGHT_SCHEMA`, `REDIS_URL`, `PORT`, …).
 */
import { pathToFileURL } from 'node:url';
import { continuationModel } from './continuation-model';

interface User {
  id: string;
  canStartRuns: boolean;
}

const sessionUser = async (request: Request): Promise<User | null> =>
  request.headers.get('authorization') === 'Bearer reader'
    ? { id: 'reader', canStartRuns: true }
    : null;

Object.assign(globalThis, {
  tools: {},
  sessionUser,
  canAccess: (user: User | null) => user !== null,
});
Object.defineProperty(globalThis, 'model', { get: () => continuationModel(), configurable: true });

const file = process.argv[2];
if (!file) throw new TypeError('usage: guide-process.ts <snippet file>');
await import(pathToFileURL(file).href);
