import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as driver from '../src/driver/index';
import * as main from '../src/index';
import * as otel from '../src/otel/index';
import * as testKit from '../src/test-kit/index';
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
    'gatedModel',
    'scriptedModel',
    'seededRandom',
    'withLatency',
  ],
  '@runlight/runtime/otel': ['createOtelTelemetry'],
  '@runlight/runtime/test-kit': [
    'assistantMessage',
    'busDelta',
    'busLabel',
    'countingDriver',
    'describeBusConformance',
    'describeDriverConformance',
    'describeRunRecovery',
    'followBus',
    'listenOnLoopback',
    'manualClock',
    'measureLongAnswer',
    'modelRequest',
    'publicRunOf',
    'serveRunHandlers',
    'startBusRun',
    'wordTokens',
  ],
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
    ['@runlight/runtime/test-kit', testKit],
    ['@runlight/runtime/driver', driver],
  ] as const)('%s exports exactly the names it documents', (entry, module) => {
    expect(exported(module)).toEqual(SURFACE[entry]);
  });
});

describe('@runlight/runtime/test-kit is installable', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const manifest = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

  it('is a published entry, built, with Vitest an optional peer', () => {
    expect(manifest.publishConfig.exports['./test-kit']).toEqual({
      types: './dist/test-kit/index.d.ts',
      default: './dist/test-kit/index.js',
    });
    expect(readFileSync(`${root}/tsdown.config.ts`, 'utf8')).toContain(
      "'test-kit/index': 'src/test-kit/index.ts'",
    );
    expect(manifest.peerDependencies.vitest).toBeDefined();
    expect(manifest.peerDependenciesMeta.vitest).toEqual({ optional: true });
  });

  it('imports no private workspace package: its fixtures are its own', () => {
    const dir = `${root}/src/test-kit`;
    const imports = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [
          ...readFileSync(`${dir}/${file}`, 'utf8').matchAll(
            /^(?:import|export)[^;]*? from '([^']+)'/gms,
          ),
        ].map((match) => match[1]!),
      );
    const packages = new Set(imports.filter((name) => !name.startsWith('.')));
    expect([...packages].sort()).toEqual(['@runlight/protocol', 'node:http', 'node:net', 'vitest']);
  });
});
