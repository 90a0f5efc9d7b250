import { initialRunState, type RunState } from '@runlight/client';
import type { AgentRun } from '@runlight/protocol';
import { at, modelRequestOperation, run, statusEvent } from '@runlight/test-utils';
import { describe, expect, it } from 'vitest';
import type { Style } from '../output/style';
import { PhaseTracker } from '../tail/phase-tracker';
import { renderTailLine } from '../tail/render-tail';
import type { TailRecord } from '../tail/tail-records';

/** A lease that never runs out here, and one long gone (the fixtures' clock is in the past). */
const FUTURE = '2099-01-01T00:00:00.000Z';
const streaming = modelRequestOperation('first-output', { startedAt: at(1), firstOutputAt: at(2) });

const stateOf = (record: Partial<AgentRun>, revision = 3): RunState => ({
  ...initialRunState('run-1'),
  phase: 'synced',
  revision,
  connection: 'live',
  run: run(revision, { lastOperation: streaming, leaseExpiresAt: FUTURE, ...record }),
});

const plain: Style = { enabled: false, paint: (_format, text) => text };
const phases = (records: TailRecord[]) =>
  records.flatMap((record) => (record.type === 'phase' ? [record] : []));

describe('PhaseTracker: lines that say what is so', () => {
  it('one stall is one line: a lease renewed on a clock behind ours moves the expiry, not the stall', () => {
    const tracker = new PhaseTracker('run-1', { recovers: false });
    const records = [
      stateOf({}),
      stateOf({ leaseExpiresAt: at(10) }, 4),
      // The owner renewed, but its new lease is already over by this clock: still the same stall.
      stateOf({ leaseExpiresAt: at(20) }, 5),
      stateOf({ leaseExpiresAt: at(30) }, 6),
    ].flatMap((state) => tracker.observe(state));
    expect(phases(records).map((record) => [record.activity, record.at])).toEqual([
      ['streaming', at(2)],
      ['stalled', at(10)],
    ]);
  });

  it('a phase the new owner resumes says so, dated at the takeover, never earlier', () => {
    const tracker = new PhaseTracker('run-1', { recovers: false });
    const records = [
      ...tracker.observe(stateOf({})),
      ...tracker.observe(stateOf({ leaseExpiresAt: at(10) }, 4)),
      ...tracker.observeEvent({
        ...statusEvent(15, 'running'),
        owner: 'worker-b',
        fencingToken: 2,
      }),
      // The new owner's first state still holds the operation it took over.
      ...tracker.observe(stateOf({ owner: 'worker-b', fencingToken: 2 }, 15)),
      // Its own next operation, recorded on a clock a little behind the takeover's.
      ...tracker.observe(
        stateOf(
          {
            owner: 'worker-b',
            fencingToken: 2,
            lastOperation: modelRequestOperation('started', { step: 1, startedAt: at(12) }),
          },
          16,
        ),
      ),
    ];
    const lines = records.map((record) => renderTailLine(record, plain)!);
    expect(lines.map((line) => line.slice(0, 24))).toEqual([at(2), at(10), at(15), at(15), at(15)]);
    expect(lines[3]).toMatch(
      / {2}Writing the answer — resumed \(since 2026-12-02T10:00:02\.000Z\)$/,
    );
    expect(lines[4]).toMatch(/ {2}Waiting for the model \(since 2026-12-02T10:00:12\.000Z\)$/);
    // `--json` keeps each phase's own start and says how its line is dated.
    expect(phases(records)[2]).toMatchObject({
      at: at(2),
      line: { at: at(15), resumed: true, elapsedMs: 15_000 },
    });
    expect(phases(records)[3]).toMatchObject({ at: at(12), line: { at: at(15), resumed: false } });
  });

  it('claims no stall while the server is out of contact: no renewal could have reached us', () => {
    const tracker = new PhaseTracker('run-1', { recovers: false });
    const expired = stateOf({ leaseExpiresAt: at(10) }, 4);
    expect(phases(tracker.observe(stateOf({}))).map((record) => record.activity)).toEqual([
      'streaming',
    ]);
    expect(tracker.observe({ ...expired, connection: 'offline' }, { outOfContact: true })).toEqual(
      [],
    );
    expect(phases(tracker.observe(expired)).map((record) => record.activity)).toEqual(['stalled']);
  });
});
