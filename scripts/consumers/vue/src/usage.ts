// Every public name of @runlight/vue, used as an app would, under strict options.
import { createRunlightClient } from '@runlight/client';
import {
  createRunlight,
  type DehydratedRuns,
  OperationIndicator,
  RunlightPluginMissingError,
  RunlightProvider,
  RunStatus,
  type RunStatusInfo,
  runlightStatusCss,
  useCountdown,
  useElapsed,
  useRun,
  useRunActivity,
  useRunConnection,
  useRunControls,
  useRunHistory,
  useRunOperation,
  useRunStatus,
  useRunTimeline,
} from '@runlight/vue';
import { createApp, defineComponent, h, ref } from 'vue';

const Widget = defineComponent({
  props: { runId: { type: String, required: true } },
  setup(props) {
    const runId = ref(props.runId);
    const run = useRun(runId);
    const parts = useRun(runId, { select: (state) => state.assistant?.message.parts.length ?? 0 });
    const activity = useRunActivity(runId);
    const operation = useRunOperation(runId);
    const connection = useRunConnection(runId);
    const status = useRunStatus(() => props.runId, {
      labels: { activity: { streaming: 'Writing' } },
    });
    const elapsed = useElapsed(() => status.value.since, { until: () => status.value.until });
    const countdown = useCountdown(() => status.value.retry?.at);
    const history = useRunHistory(runId);
    const timeline = useRunTimeline(runId);
    const { cancel, answerApprovals, cancelling, error } = useRunControls(runId);
    const info: RunStatusInfo = status.value;
    return () =>
      h('section', [
        h(RunStatus, { runId: props.runId, class: 'status', unstyled: true }),
        h(OperationIndicator, { runId: props.runId }),
        h('p', `${run.value.activity.kind} ${parts.value} ${activity.value.kind}`),
        h('p', `${operation.value?.kind} ${connection.value.state} ${elapsed.value}`),
        h(
          'p',
          `${countdown.value} ${history.value.operations.length} ${timeline.value.rows.length}`,
        ),
        h('p', `${info.label} ${cancelling.value} ${error.value?.kind}`),
        h('button', { onClick: () => cancel() }, 'Cancel'),
        h(
          'button',
          { onClick: () => answerApprovals([{ approvalId: 'a', approved: true }]) },
          'OK',
        ),
      ]);
  },
});

const snapshots: DehydratedRuns = {};
const runlight = createRunlight({
  client: createRunlightClient({ baseUrl: '/api' }),
  recovers: true,
  snapshots,
});
createApp(
  defineComponent({
    setup: () => () =>
      h(RunlightProvider, { baseUrl: '/api' }, () => h(Widget, { runId: 'run-1' })),
  }),
)
  .use(runlight)
  .mount('#app');
export const checks = [runlightStatusCss.length, new RunlightPluginMissingError('x').hook];
