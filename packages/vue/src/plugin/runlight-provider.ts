import type { RunlightClient } from '@runlight/client';
import { defineComponent, type PropType, provide } from 'vue';
import { createRunlight, type DehydratedRuns, RUNLIGHT_KEY } from './create-runlight';

/**
 * Provides Runlight to the components below it, for a part of an app (the plugin does it for a
 * whole app): a `client`, or just a `baseUrl` (the provider creates the client once).
 *
 * @example
 * <RunlightProvider base-url="/api"><RunStatus :run-id="runId" /></RunlightProvider>
 */
export const RunlightProvider = defineComponent({
  name: 'RunlightProvider',
  props: {
    client: { type: Object as PropType<RunlightClient>, default: undefined },
    baseUrl: { type: String, default: undefined },
    recovers: { type: Boolean, default: false },
    snapshots: { type: Object as PropType<DehydratedRuns>, default: undefined },
  },
  setup(props, { slots }) {
    // Created once, for the provider's lifetime: stores and their connections live in the client.
    const runlight = createRunlight({
      ...(props.client === undefined ? {} : { client: props.client }),
      ...(props.baseUrl === undefined ? {} : { baseUrl: props.baseUrl }),
      ...(props.snapshots === undefined ? {} : { snapshots: props.snapshots }),
      recovers: props.recovers,
    });
    provide(RUNLIGHT_KEY, runlight);
    return () => slots.default?.();
  },
});
