import type { RunlightClient } from '@runlight/client';

export type DevtoolsPosition = 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';

export interface RunlightDevtoolsProps {
  /** The client to inspect. Default: the nearest `RunlightProvider`'s. */
  client?: RunlightClient;
  /** Open the panel at first render. Default false. */
  initialIsOpen?: boolean;
  /** Where the button sits. Default `'bottom-right'`. */
  position?: DevtoolsPosition;
  /** `'system'` follows `prefers-color-scheme`. Default `'system'`. */
  theme?: 'light' | 'dark' | 'system';
  /** Whether anything recovers a stalled run (the words of a stalled run). Default: the provider's. */
  recovers?: boolean;
}
