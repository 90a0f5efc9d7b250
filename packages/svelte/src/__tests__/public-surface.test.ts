import * as client from '@runlight/client';
import { describeBindingSurface } from '@runlight/test-utils/binding-surface';
import * as binding from '../index';

/** `@runlight/svelte`: every value of `@runlight/client`, then its own, pinned here. */
const OWN = [
  'RunStatus',
  'RunlightProvider',
  'RunlightProviderMissingError',
  'createRunlightContext',
  'getRunlightContext',
  'loadRun',
  'seedRun',
  'setRunlightContext',
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
];

describeBindingSurface('@runlight/svelte', { binding, client, own: OWN });
