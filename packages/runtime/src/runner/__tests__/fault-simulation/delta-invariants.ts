import type { DurableRunEvent, RunDeltaEvent, RunEvent } from '@runlight/protocol';

/**
 * "No glued text" (issue 21 item 7), stated on what the runtimes published: a client's cursor
 * (`baseRevision:seq`) can never confuse two owners' deltas. Every delta names its owner's
 * acquisition (`fencingToken`); all deltas on one base are one owner's, numbered 1, 2, … once
 * each by it; and the base is a write of that owner — or, for a run's first execution only
 * (token 1), no write yet (0). A takeover that numbered its deltas on the dead owner's last
 * write (the bug) breaks the last two.
 */
export function deltaViolations(
  published: Map<string, RunEvent[]>,
  log: readonly DurableRunEvent[],
): string[] {
  const violations: string[] = [];
  const tokenAt = new Map<number, number>();
  let token = 0;
  for (const event of [...log].sort((a, b) => a.revision - b.revision)) {
    if (event.type === 'run-status') token = event.fencingToken;
    tokenAt.set(event.revision, token);
  }
  const owners = new Map<number, { token: number | undefined; name: string }>();
  for (const [name, events] of published) {
    const lastSeq = new Map<number, number>();
    for (const delta of events.filter((e): e is RunDeltaEvent => e.type === 'run-delta')) {
      const { baseRevision: base, seq, fencingToken } = delta;
      const at = `runtime ${name} delta ${base}:${seq}`;
      if (fencingToken === undefined) violations.push(`${at} names no fencing token`);
      const owner = owners.get(base);
      if (owner === undefined) owners.set(base, { token: fencingToken, name });
      else if (owner.token !== fencingToken || owner.name !== name) {
        violations.push(
          `${at} (token ${fencingToken}) shares its base with runtime ${owner.name}'s (token ${owner.token}): glued text`,
        );
      }
      const expected = (lastSeq.get(base) ?? 0) + 1;
      if (seq !== expected) violations.push(`${at} follows seq ${expected - 1}`);
      lastSeq.set(base, seq);
      if (log.length === 0) continue;
      const writer = base === 0 ? 1 : tokenAt.get(base);
      if (writer !== undefined && fencingToken !== undefined && writer !== fencingToken) {
        violations.push(
          `${at} (token ${fencingToken}) builds on a write of token ${writer}, not its own`,
        );
      }
    }
  }
  return violations;
}
