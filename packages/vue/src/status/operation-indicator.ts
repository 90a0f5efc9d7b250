import { type RunStatusLabelsInput, statusText } from '@runlight/client';
import { defineComponent, h, type PropType } from 'vue';
import { useRunlightStyle } from './runlight-style';
import { useRunStatus } from './use-run-status';

/**
 * A compact dot (or spinner while the run is busy) whose accessible name is the run's status,
 * e.g. "Waiting for the model" or "Failed: Another worker took over".
 *
 * @example
 * <OperationIndicator :run-id="runId" />
 */
export const OperationIndicator = defineComponent({
  name: 'OperationIndicator',
  props: {
    runId: { type: String, required: true },
    labels: { type: Object as PropType<RunStatusLabelsInput>, default: undefined },
    /** Whether anything recovers a stalled run; default the plugin's `recovers`. */
    recovers: { type: Boolean, default: undefined },
    /** Leave out the default styles; style `[data-runlight='indicator']` yourself. */
    unstyled: { type: Boolean, default: false },
  },
  setup(props) {
    const status = useRunStatus(() => props.runId, {
      labels: () => props.labels,
      recovers: () => props.recovers,
    });
    useRunlightStyle(() => !props.unstyled);
    return () => {
      const current = status.value;
      return h('span', {
        role: 'img',
        'aria-label': statusText(current),
        'data-runlight': 'indicator',
        'data-activity': current.activity.kind,
        'data-busy': current.busy ? '' : undefined,
        'data-error': current.error?.kind,
        'data-load-failure': current.loadFailure ?? undefined,
      });
    };
  },
});
