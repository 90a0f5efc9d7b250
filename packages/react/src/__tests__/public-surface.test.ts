import * as client from '@runlight/client';
import { describeBindingSurface } from '@runlight/test-utils/binding-surface';
import { describe, expect, it } from 'vitest';
import * as binding from '../index';
import * as server from '../server';

/** `@runlight/react`: every value of `@runlight/client`, then its own, pinned here. */
const OWN = [
  'OperationIndicator',
  'RunStatus',
  'RunTimeline',
  'RunlightProvider',
  'RunlightProviderMissingError',
  'RunlightStyle',
  'createQuerySnapshotLoader',
  'prefetchRun',
  'runQueryKey',
  'runQueryOptions',
  'runlightCss',
  'useCountdown',
  'useElapsed',
  'useRecovers',
  'useRun',
  'useRunActivity',
  'useRunConnection',
  'useRunControls',
  'useRunHistory',
  'useRunOperation',
  'useRunStatus',
  'useRunlight',
  'useSuspenseRun',
];

const published = describeBindingSurface('@runlight/react', { binding, client, own: OWN });

describe('@runlight/react/server', () => {
  it('exports what a server calls outside the client boundary, the same functions', () => {
    expect(Object.keys(server).sort()).toEqual(['prefetchRun', 'runQueryKey', 'runQueryOptions']);
    for (const [name, value] of Object.entries(server)) {
      expect(published.get(name), name).toBe(value);
    }
  });
});
