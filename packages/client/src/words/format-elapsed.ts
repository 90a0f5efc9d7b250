/**
 * Formats a duration for a status line: tenths below 10 s, whole seconds below a minute, then
 * minutes and two-digit seconds, then hours and two-digit minutes. Rounds down (a time shown
 * has always passed); negative or non-finite input shows as `0.0 s`.
 *
 * @example
 * formatElapsed(800); // '0.8 s'
 * formatElapsed(12_400); // '12 s'
 * formatElapsed(65_000); // '1 min 05 s'
 * formatElapsed(3_720_000); // '1 h 02 min'
 */
export function formatElapsed(ms: number): string {
  const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
  if (value < 10_000) return `${(Math.floor(value / 100) / 10).toFixed(1)} s`;
  const seconds = Math.floor(value / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${pad(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${pad(minutes % 60)} min`;
}

/**
 * The step at which `formatElapsed`'s output can change, so a ticking time re-renders only
 * when the text would.
 *
 * @example
 * elapsedResolutionMs(4_200); // 100 — tenths of a second are shown
 * elapsedResolutionMs(65_000); // 1000
 */
export function elapsedResolutionMs(ms: number): number {
  return ms < 10_000 ? 100 : ms < 3_600_000 ? 1000 : 60_000;
}

function pad(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}
