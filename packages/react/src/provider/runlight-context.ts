import type { RunlightClient } from '@runlight/client';
import type { QueryClient } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { RunlightProviderMissingError } from '../errors/runlight-provider-missing-error';

/** What `RunlightProvider` hands to its hooks. */
export interface RunlightContextValue {
  readonly client: RunlightClient;
  readonly queryClient: QueryClient;
  /** Whether anything recovers a stalled run here (`RunlightProvider`'s `recovers`). */
  readonly recovers: boolean;
}

export const RunlightContext = createContext<RunlightContextValue | null>(null);

/**
 * The client and query client of the nearest `RunlightProvider`; throws
 * `RunlightProviderMissingError` naming `hook` when there is none.
 *
 * @example
 * const { client } = useRunlight('useMyRunWidget');
 */
export function useRunlight(hook = 'useRunlight'): RunlightContextValue {
  const value = useContext(RunlightContext);
  if (value === null) throw new RunlightProviderMissingError(hook);
  return value;
}
