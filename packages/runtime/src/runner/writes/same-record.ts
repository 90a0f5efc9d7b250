/** JSON with sorted keys: equal for records equal as stored (key order and undefined aside). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}
export const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
