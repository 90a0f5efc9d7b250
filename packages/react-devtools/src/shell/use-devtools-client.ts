import {
  type ClientInspection,
  inspectRunlightClient,
  type RunlightClient,
} from '@runlight/client';
import { type RunlightContextValue, useRunlight } from '@runlight/react';
import { useMemo } from 'react';

/** The nearest `RunlightProvider`'s value, or null outside one. */
function useOptionalRunlight(): RunlightContextValue | null {
  try {
    // `useRunlight` reads the context first and throws only after: the hook order holds.
    // biome-ignore lint/correctness/useHookAtTopLevel: called on every render, in one place.
    return useRunlight('RunlightDevtools');
  } catch {
    return null;
  }
}

export interface DevtoolsClient {
  client: RunlightClient | null;
  inspection: ClientInspection | null;
  /** The app's provider, when it is one for this client (the timeline then reads through it). */
  provider: RunlightContextValue | null;
}

/**
 * The client to inspect (the prop, else the provider's) and its inspection, which starts
 * keeping the durable log of every run the client holds — as early as the devtools render.
 */
export function useDevtoolsClient(own: RunlightClient | undefined): DevtoolsClient {
  const provider = useOptionalRunlight();
  const client = own ?? provider?.client ?? null;
  const inspection = useMemo(() => {
    const found = client === null ? null : inspectRunlightClient(client);
    found?.record();
    return found;
  }, [client]);
  return { client, inspection, provider: provider?.client === client ? provider : null };
}
