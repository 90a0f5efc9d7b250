import * as client from '@runlight/client';
import { describe, expect, it } from 'vitest';
import * as binding from '../index';
import * as server from '../server';

/**
 * `@runlight/react` publishes every value of `@runlight/client` (the same objects: one definition
 * each), then its own — pinned here. A name added or removed is a deliberate change to the
 * package's surface (add a changeset).
 */
const published = new Map(Object.entries(binding));

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

describe('@runlight/react public surface', () => {
  it('re-exports every value of @runlight/client, the same object', () => {
    const missing = Object.keys(client).filter((name) => !(name in binding));
    expect(missing).toEqual([]);
    for (const [name, value] of Object.entries(client)) {
      expect(published.get(name), name).toBe(value);
    }
  });

  it('its own values are exactly the pinned ones', () => {
    expect(
      Object.keys(binding)
        .filter((name) => !(name in client))
        .sort(),
    ).toEqual(OWN);
  });

  it('./server exports what a server calls outside the client boundary, the same functions', () => {
    expect(Object.keys(server).sort()).toEqual(['prefetchRun', 'runQueryKey', 'runQueryOptions']);
    for (const [name, value] of Object.entries(server)) {
      expect(published.get(name), name).toBe(value);
    }
  });
});
