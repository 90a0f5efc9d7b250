import * as client from '@runlight/client';
import { describeBindingSurface } from '@runlight/test-utils/binding-surface';
import * as binding from '../index';

/** `@runlight/vue`: every value of `@runlight/client`, then its own, pinned here. */
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

describeBindingSurface('@runlight/vue', { binding, client, own: OWN });
