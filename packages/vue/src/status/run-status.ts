import { type Activity, formatElapsed, type RunStatusLabelsInput } from '@runlight/client';
import { defineComponent, h, type PropType, type SlotsType, type VNode } from 'vue';
import { useCountdown, useElapsed } from '../elapsed/use-elapsed';
import { useRunlightStyle } from './runlight-style';
import { type RunStatusInfo, useRunStatus } from './use-run-status';

/** What the default slot of `RunStatus` gets (headless: render the content yourself). */
export interface RunStatusSlotProps {
  activity: Activity;
  elapsedMs: number | null;
  status: RunStatusInfo;
}

/**
 * A run's status line: a label for every activity (failure codes in words), the time since the
 * server's original timestamp, and `role="status"` / `aria-live="polite"`. The ticking time is
 * `aria-hidden` so screen readers hear the status changes, not every second. Only the time
 * re-renders on ticks. Attributes (`class`, `id`, …) go to the live region.
 *
 * @example
 * <RunStatus :run-id="runId" />
 * <RunStatus :run-id="runId" v-slot="{ activity, elapsedMs }"><MyBadge :kind="activity.kind" :ms="elapsedMs" /></RunStatus>
 */
export const RunStatus = defineComponent({
  name: 'RunStatus',
  props: {
    runId: { type: String, required: true },
    /** Texts to replace (i18n); merged over `defaultRunStatusLabels`. */
    labels: { type: Object as PropType<RunStatusLabelsInput>, default: undefined },
    /** Whether anything recovers a stalled run; default the plugin's `recovers`. */
    recovers: { type: Boolean, default: undefined },
    /** How the elapsed time is written; default `formatElapsed`. */
    formatElapsed: { type: Function as PropType<(ms: number) => string>, default: formatElapsed },
    /** Leave out the default styles; the data attributes stay for your own. */
    unstyled: { type: Boolean, default: false },
    /** The live region's element. */
    tag: { type: String, default: 'div' },
  },
  slots: Object as SlotsType<{ default?: RunStatusSlotProps }>,
  setup(props, { slots }) {
    const status = useRunStatus(() => props.runId, {
      labels: () => props.labels,
      recovers: () => props.recovers,
    });
    useRunlightStyle(() => !props.unstyled);
    return () => {
      const current = status.value;
      const content =
        slots.default === undefined
          ? statusContent(current, props.formatElapsed)
          : h(HeadlessStatus, { status: current }, { default: slots.default });
      return h(
        props.tag,
        {
          role: 'status',
          'aria-live': 'polite',
          'data-runlight': 'status',
          'data-activity': current.activity.kind,
          'data-failure': current.activity.failure?.code,
          'data-error': current.error?.kind,
          'data-load-failure': current.loadFailure ?? undefined,
          // The server cannot be reached: what is shown is the last known (styles mark it).
          'data-connection': current.connectionIssue === 'unreachable' ? 'unreachable' : undefined,
        },
        content,
      );
    };
  },
});

function statusContent(status: RunStatusInfo, format: (ms: number) => string): VNode[] {
  const kind = status.activity.kind;
  if (status.retry !== undefined) {
    return [
      h('span', {
        'aria-hidden': 'true',
        'data-runlight': 'indicator',
        'data-activity': kind,
        'data-busy': '',
      }),
      // Announced once; the ticking countdown beside it is hidden from screen readers.
      h('span', { 'data-runlight-part': 'label', style: VISUALLY_HIDDEN }, status.label),
      h(RetryCountdown, { status }),
    ];
  }
  return [
    h('span', {
      'aria-hidden': 'true',
      'data-runlight': 'indicator',
      'data-activity': kind,
      'data-busy': status.busy ? '' : undefined,
    }),
    h('span', { 'data-runlight-part': 'label' }, status.label),
    ...(status.detail === undefined
      ? []
      : [h('span', { 'data-runlight-part': 'detail' }, status.detail)]),
    ...(status.since === undefined ? [] : [h(ElapsedText, { status, format })]),
  ];
}

/** Hidden on screen, read by screen readers (works with `unstyled` too). */
const VISUALLY_HIDDEN = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;

const statusProp = { type: Object as PropType<RunStatusInfo>, required: true } as const;

const ElapsedText = defineComponent({
  name: 'RunStatusElapsed',
  props: {
    status: statusProp,
    format: { type: Function as PropType<(ms: number) => string>, required: true },
  },
  setup(props) {
    const ms = useElapsed(() => props.status.since, {
      until: () => props.status.until ?? null,
      clockOffsetMs: () => props.status.clockOffsetMs,
    });
    return () =>
      ms.value === null
        ? null
        : h(
            'span',
            { 'aria-hidden': 'true', 'data-runlight-part': 'elapsed' },
            props.format(ms.value),
          );
  },
});

const RetryCountdown = defineComponent({
  name: 'RunStatusRetryCountdown',
  props: { status: statusProp },
  setup(props) {
    const seconds = useCountdown(() => props.status.retry?.at, {
      clockOffsetMs: () => props.status.clockOffsetMs,
    });
    return () => {
      const retry = props.status.retry;
      if (seconds.value === null || retry === undefined) return null;
      const text = props.status.labels.retryCountdown(
        seconds.value,
        retry.attempt,
        retry.maxAttempts,
      );
      return h('span', { 'aria-hidden': 'true', 'data-runlight-part': 'countdown' }, text);
    };
  },
});

const HeadlessStatus = defineComponent({
  name: 'RunStatusHeadless',
  props: { status: statusProp },
  slots: Object as SlotsType<{ default: RunStatusSlotProps }>,
  setup(props, { slots }) {
    const ms = useElapsed(() => props.status.since, {
      until: () => props.status.until ?? null,
      clockOffsetMs: () => props.status.clockOffsetMs,
    });
    return () =>
      slots.default({ activity: props.status.activity, elapsedMs: ms.value, status: props.status });
  },
});
