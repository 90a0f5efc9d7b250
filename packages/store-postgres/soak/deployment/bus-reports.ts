import type { Member } from './fleet';

/** Where each member's bus reports stood when a wave began. */
export type ReportMarks = Map<Member, number>;

export const markReports = (members: readonly Member[]): ReportMarks =>
  new Map(members.map((member) => [member, member.busReports.length]));

/**
 * The Redis bus's reports of one wave. After a Redis outage every process alive through it
 * must have reported it exactly twice — started, then ended after Redis was back — never once
 * per dropped delta; `backMs` is how long after Redis the last process said it was back.
 */
export function checkBusReports(input: {
  marks: ReportMarks;
  clearedAt: number;
  redisOutage: boolean;
}): { violations: string[]; notes: string; backMs: number | null } {
  const violations: string[] = [];
  let backMs: number | null = null;
  let reports = 0;
  let dropped = 0;
  let sent = 0;
  for (const [member, mark] of input.marks) {
    const wave = member.busReports.slice(mark);
    reports += wave.length;
    const phases = wave.filter((report) => report.phase !== null);
    for (const report of phases) {
      dropped += report.droppedDeltas;
      sent += report.sentDeltas ?? 0;
    }
    if (!input.redisOutage || member.exited) continue;
    const seen = phases.map((report) => report.phase).join(',');
    if (seen !== 'started,ended') {
      violations.push(`${member.name} reported the Redis outage as [${seen}], not [started,ended]`);
      continue;
    }
    backMs = Math.max(backMs ?? 0, phases[1]!.at - input.clearedAt);
  }
  // Deltas published while Redis was down: queued and delivered when it was back, or dropped.
  const notes = `${reports} bus reports; deltas sent during the outage ${sent}, delivered ${Math.max(0, sent - dropped)}, dropped ${dropped}`;
  return { violations, notes, backMs };
}
