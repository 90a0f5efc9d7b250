import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { createClient } from 'redis';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User + system CPU of `pid` so far, ms (0 once it is gone). */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // After the command: state is field 3; utime and stime are fields 14 and 15.
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The CPU the database server spends for the benchmark: its backends or its process. */
export interface ServerCpu {
  /** CPU so far, ms. */
  read(): Promise<number>;
  close(): Promise<void>;
}

/** PostgreSQL: the backends of the benchmark's connections (by `application_name`). */
export function postgresCpu(connectionString: string, applicationName: string): ServerCpu {
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on('error', () => {});
  /** Every backend seen, with its CPU when last read (a closed one keeps its last figure). */
  const seen = new Map<number, number>();
  return {
    async read() {
      const { rows } = await pool.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      for (const { pid } of rows) seen.set(pid, processCpuMs(pid) || (seen.get(pid) ?? 0));
      return [...seen.values()].reduce((sum, ms) => sum + ms, 0);
    },
    close: () => pool.end(),
  };
}

/** Redis: the server process (shared by anything else using it meanwhile). */
export async function redisCpu(url: string): Promise<ServerCpu> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  const info = await client.info('server');
  const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  return {
    read: async () => processCpuMs(pid),
    close: () => client.close(),
  };
}
