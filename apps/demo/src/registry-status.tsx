import { BetweenSteps } from '@/components/runlight/between-steps';
import { CompactionNotice } from '@/components/runlight/compaction-notice';
import { RetryCountdown } from '@/components/runlight/retry-countdown';
import { RunStatusPill } from '@/components/runlight/run-status-pill';
import { StalledBanner } from '@/components/runlight/stalled-banner';

/**
 * The registry components (`registry/`, what `shadcn add` installs) on the same run: the pill,
 * and the notices that appear only at their moment — a retry countdown, the gap between steps,
 * a compaction, a stalled worker (the playground's recovery takes stalled runs over).
 */
export function RegistryStatus({ runId }: { runId: string }) {
  return (
    <section className="card" data-testid="registry-status">
      <h2>Registry components</h2>
      <div className="flex flex-col items-start gap-2">
        <RunStatusPill runId={runId} />
        <RetryCountdown runId={runId} />
        <BetweenSteps runId={runId} />
        <CompactionNotice runId={runId} />
        <StalledBanner runId={runId} recovers />
      </div>
    </section>
  );
}
