/** `13:45:02.123` — a server timestamp in the visitor's local time, to the millisecond. */
export function formatClock(iso: string | undefined): string {
  if (iso === undefined) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** `+1.25 s` between two server timestamps, or `''` when either is missing. */
export function formatOffset(from: string | undefined, to: string | undefined): string {
  if (from === undefined || to === undefined) return '';
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? `+${(ms / 1000).toFixed(2)} s` : '';
}
