import { describe, expect, it } from 'vitest';
import * as driver from '../src/driver/index';
import * as main from '../src/index';
import * as otel from '../src/otel/index';
import * as testing from '../src/testing/index';

/**
 * Every value each published entry of `@runlight/runtime` exports. Nothing is public by
 * accident: a name added here is a deliberate change to the package's surface (with a
 * changeset), and one that disappears breaks someone's import. Internals — reducers beyond
 * those the client's server simulation needs, schemas of stored records, cursor and stream
 * helpers, default constants a README only quotes — stay inside the package.
 */
const SURFACE: Record<string, readonly string[]> = {
  '@runlight/runtime': [
    'AccessPolicyError',
    'BadCursorError',
    'CallbackResultError',
    'DEFAULT_CHECKPOINT_EVERY_EVENTS',
    'DEFAULT_CLOSE_TIMEOUT_MS',
    'DEFAULT_MAX_TOOL_RESULT_BYTES',
    'FencingError',
    'InvalidChatIdError',
    'InvalidRunIdError',
    'InvalidTransitionError',
    'MODEL_CALL_OPTION_KEYS',
    'RUN_ROUTES',
    'RunEventHub',
    'RunNotFoundError',
    'RunlightError',
    'RuntimeClosedError',
    'StoreConflictError',
    'StoreRecordError',
    'StoreUnavailableError',
    'TOOL_RESULT_TOO_LARGE_TEXT',
    'ToolResultTooLargeError',
    'chatRunId',
    'chatStartBodySchema',
    'createAgentRuntime',
    'createAgentRuntimeStore',
    'createChatReadRoute',
    'createChatRoutes',
    'createChatStartRoute',
    'createCorsPolicy',
    'createCrossSiteGuard',
    'createMemoryDriver',
    'createMultiplexHandlers',
    'createNodeRequest',
    'createRunHandlers',
    'createRunRecovery',
    'createRunRouter',
    'idempotencyKeyOf',
    'inProcessFetch',
    'loadChatConversation',
    'pathProblem',
    'readJsonBody',
    'redactError',
    'setRawRequestTarget',
    'toNodeListener',
    'writeNodeResponse',
  ],
  '@runlight/runtime/testing': [
    'InjectedDriverError',
    'faultyDriver',
    'scriptedModel',
    'seededRandom',
    'withLatency',
  ],
  '@runlight/runtime/otel': ['createOtelTelemetry'],
  '@runlight/runtime/driver': [
    'BusHealth',
    'BusTimers',
    'ControlListeners',
    'EventSequenceError',
    'OwnedRun',
    'RunDelivery',
    'RunMutationQueue',
    'evolveRun',
    'reduceAcquireRun',
    'reduceAppendAssistant',
    'reduceCommitTerminal',
    'reduceCreateRun',
    'reduceRecordRunOperation',
    'reduceSaveAssistantCheckpoint',
    'storedEventHead',
    'unpackStoredEvent',
    'wholeStoredEvent',
  ],
};

const exported = (module: object) => Object.keys(module).sort();

describe('the public surface of @runlight/runtime', () => {
  it.each([
    ['@runlight/runtime', main],
    ['@runlight/runtime/testing', testing],
    ['@runlight/runtime/otel', otel],
    ['@runlight/runtime/driver', driver],
  ] as const)('%s exports exactly the names it documents', (entry, module) => {
    expect(exported(module)).toEqual(SURFACE[entry]);
  });
});
