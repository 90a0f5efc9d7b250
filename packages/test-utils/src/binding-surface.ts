import { describe, expect, it } from 'vitest';

type Module = Record<string, unknown>;

/**
 * The public-surface checks every UI binding makes: it publishes every value of
 * `@runlight/client` (the same objects: one definition each), then its own values, exactly
 * `own` (sorted). A name added or removed is a deliberate change to the package's surface (add
 * a changeset). Returns the published values by name, for checks of the binding's own.
 *
 * @example
 * import * as client from '@runlight/client';
 * import * as binding from '../index';
 * describeBindingSurface('@runlight/vue', { binding, client, own: ['RunStatus', 'useRun'] });
 */
export function describeBindingSurface(
  name: string,
  { binding, client, own }: { binding: Module; client: Module; own: readonly string[] },
): Map<string, unknown> {
  const published = new Map(Object.entries(binding));
  describe(`${name} public surface`, () => {
    it('re-exports every value of @runlight/client, the same object', () => {
      const missing = Object.keys(client).filter((key) => !(key in binding));
      expect(missing).toEqual([]);
      for (const [key, value] of Object.entries(client)) {
        expect(published.get(key), key).toBe(value);
      }
    });

    it('its own values are exactly the pinned ones', () => {
      expect(
        Object.keys(binding)
          .filter((key) => !(key in client))
          .sort(),
      ).toEqual([...own]);
    });
  });
  return published;
}
