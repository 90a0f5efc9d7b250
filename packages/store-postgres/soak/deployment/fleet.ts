import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BusReport } from './open-bus';

/** One child process of the soak's deployment, and whether the soak meant it to exit. */
export interface Member {
  readonly name: string;
  readonly role: 'runner' | 'gateway';
  readonly child: ChildProcess;
  /** `http://…` for a gateway. */
  readonly origin: string | undefined;
  /** The soak killed or stopped it on purpose (its exit is no violation). */
  expectedExit: boolean;
  exited: { code: number | null; signal: string | null } | null;
  /** stderr lines (the last 50), for the report of an unexpected exit. */
  readonly stderr: string[];
  /** What its Redis bus reported (`--bus redis`), each with when the soak heard it. */
  readonly busReports: (BusReport & { at: number })[];
}

export interface Fleet {
  readonly members: Member[];
  /** `clockOffsetMs`: the process's wall clock that far off (a `Date` preload), as on a bad host. */
  start(role: Member['role'], name: string, options?: { clockOffsetMs?: number }): Promise<Member>;
  /** The runners alive now. */
  runners(): Member[];
  gateways(): Member[];
  /** SIGTERM, and resolves when it exited (or was SIGKILLed after `graceMs`). */
  terminate(member: Member, graceMs?: number): Promise<void>;
  kill(member: Member): Promise<void>;
  /** Members that exited without the soak asking them to. */
  unexpectedExits(): Member[];
  stopAll(): Promise<void>;
}

const FILES = { runner: './runner-process.ts', gateway: './gateway-process.ts' } as const;
/** The preload the clock-skew test uses too: offsets `Date` by `RUNLIGHT_CLOCK_OFFSET_MS`. */
const CLOCK_OFFSET = fileURLToPath(new URL('../../src/__tests__/clock-offset.ts', import.meta.url));

export function createFleet(env: Record<string, string>): Fleet {
  const members: Member[] = [];
  const exited = (member: Member) =>
    member.exited
      ? Promise.resolve()
      : new Promise<void>((resolve) => member.child.once('exit', () => resolve()));
  const fleet: Fleet = {
    members,
    async start(role, name, options = {}) {
      const offset = options.clockOffsetMs;
      const child = fork(fileURLToPath(new URL(FILES[role], import.meta.url)), [], {
        env: {
          ...process.env,
          ...env,
          SOAK_NAME: name,
          ...(offset === undefined ? {} : { RUNLIGHT_CLOCK_OFFSET_MS: String(offset) }),
          DATABASE_URL: `${env.DATABASE_URL}?application_name=${env.SOAK_APP_PREFIX ?? 'soak-'}${name}`,
        },
        execArgv: [
          '--import',
          'tsx',
          '--conditions=@runlight/source',
          '--unhandled-rejections=strict',
          ...(offset === undefined ? [] : ['--import', CLOCK_OFFSET]),
        ],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      const stderr: string[] = [];
      child.stderr?.setEncoding('utf8').on('data', (text: string) => {
        stderr.push(...text.split('\n').filter(Boolean));
        stderr.splice(0, Math.max(0, stderr.length - 50));
      });
      const busReports: (BusReport & { at: number })[] = [];
      child.on('message', (message: BusReport) => {
        if (message.type === 'bus-report') busReports.push({ ...message, at: Date.now() });
      });
      const ready = await new Promise<{ origin?: string }>((resolve, reject) => {
        child.on('message', (message: { type: string; origin?: string }) => {
          if (message.type === 'ready') resolve(message);
        });
        child.once('exit', (code) =>
          reject(new Error(`${name} exited ${code} before it was ready: ${stderr.join('\n')}`)),
        );
      });
      const member: Member = {
        name,
        role,
        child,
        origin: ready.origin,
        expectedExit: false,
        exited: null,
        stderr,
        busReports,
      };
      child.on('exit', (code, signal) => {
        member.exited = { code, signal };
      });
      members.push(member);
      return member;
    },
    runners: () => members.filter((member) => member.role === 'runner' && !member.exited),
    gateways: () => members.filter((member) => member.role === 'gateway' && !member.exited),
    async terminate(member, graceMs = 15_000) {
      member.expectedExit = true;
      member.child.kill('SIGTERM');
      const timer = setTimeout(() => member.child.kill('SIGKILL'), graceMs);
      await exited(member);
      clearTimeout(timer);
    },
    async kill(member) {
      member.expectedExit = true;
      member.child.kill('SIGKILL');
      await exited(member);
    },
    unexpectedExits: () => members.filter((member) => member.exited && !member.expectedExit),
    async stopAll() {
      await Promise.all(
        members.filter((member) => !member.exited).map((member) => fleet.terminate(member, 5_000)),
      );
    },
  };
  return fleet;
}
