import * as client from '@runlight/client';
import { describe, expect, it } from 'vitest';
import * as binding from '../index';

/**
 * `@runlight/vue` publishes every value of `@runlight/client` (the same objects: one definition
 * each), then its own — pinned here. A name added or removed is a deliberate change to the
 * package's surface (add a changeset).
 */
const published = new Map(Object.entries(binding));

const OWN = [
  'OperationIndicator',
  'RUNLIGHT_KEY',
  'RunStatus',
  'RunlightPluginMissingError',
  'RunlightProvider',
  'createRunlight',
  'useCountdown',
  'useElapsed',
  'useRun',
  'useRunActivity',
  'useRunConnection',
  'useRunControls',
  'useRunHistory',
  'useRunOperation',
  'useRunStatus',
  'useRunTimeline',
  'useRunlight',
];

describe('@runlight/vue public surface', () => {
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
});
