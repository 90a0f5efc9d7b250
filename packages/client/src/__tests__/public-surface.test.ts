import { describe, expect, it } from 'vitest';
import * as client from '../index';

/**
 * Every value `@runlight/client` publishes (its one entry, `.`). The bindings re-export all of
 * them (their own surface tests check it), so a name added here reaches every binding. A change
 * here is a change to the package's surface: add a changeset.
 */
const CLIENT_SURFACE = [
  'ClientInspection',
  'ElapsedClock',
  'HeldEvents',
  'RunHistory',
  'RunLog',
  'RunMultiplexer',
  'RunObserver',
  'RunStore',
  'RunlightClientError',
  'TICK_MS',
  'activityEquals',
  'applyEvent',
  'batchSnapshotLoader',
  'buildRunTimeline',
  'completeThrough',
  'connectionEquals',
  'countdownSeconds',
  'createMultiplexedRunlightClient',
  'createRunlightClient',
  'cursorOf',
  'defaultRunStatusLabels',
  'defaultTabEnvironment',
  'dehydrateRun',
  'describeActivity',
  'describeFailure',
  'describeGap',
  'describeRunStatus',
  'describeSpanHeading',
  'describeSpanResult',
  'elapsedClock',
  'elapsedResolutionMs',
  'formatElapsed',
  'initialHistoryState',
  'initialRunState',
  'inspectRunlightClient',
  'loadFailureOf',
  'mergeHistoryPage',
  'mergeLiveEvent',
  'mergeSnapshot',
  'nextHistoryAfter',
  'pendingApprovals',
  'resolveRunStatusLabels',
  'runControlsEquals',
  'runHistoryOf',
  'runLogOf',
  'runStatusEquals',
  'runStatusInfo',
  'runlightStatusCss',
  'seedRunStore',
  'selectActivity',
  'selectConnection',
  'selectElapsedMs',
  'selectLeaseExpiry',
  'selectMessage',
  'selectOperation',
  'selectRunControls',
  'selectRunStatus',
  'selectRunView',
  'settleRunControl',
  'shareTabs',
  'shownElapsedMs',
  'statusText',
  'typedControlError',
  'watchLeaseExpiry',
  'withRetryWait',
];

describe('@runlight/client public surface', () => {
  it('exports exactly the pinned values', () => {
    expect(Object.keys(client).sort()).toEqual(CLIENT_SURFACE);
  });
});
