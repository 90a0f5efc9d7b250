/** Figures for the fan-out tables: kernel counters, quantiles, fixed-width numbers. */
import { readFileSync } from 'node:fs';

/**
 * The kernel's count of connections dropped because a listen queue was full (TcpExt
 * ListenOverflows, machine-wide): a join faster than the servers accept overflows the backlog,
 * and each dropped handshake is retried by the client after 1, 3, 7, 15 s — so such a join
 * takes tens of seconds whatever the server does once it accepts.
 */
export function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const names = lines.find((line) => line.startsWith('TcpExt:'))?.split(' ') ?? [];
    const values = lines.filter((line) => line.startsWith('TcpExt:'))[1]?.split(' ') ?? [];
    return Number(values[names.indexOf('ListenOverflows')]);
  } catch {
    return Number.NaN;
  }
}

export const quantile = (values: number[], q: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
export const fixed = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toFixed(digits) : '–';
