import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === '__tests__' ? [] : sourceFiles(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    }),
  );
  return nested.flat();
}

/**
 * PGlite (27 MB) is a database for tests and one-process apps; production runs on a server.
 * The package names it only in types, so installing it for production installs no engine.
 */
describe('a production install of @runlight/store-postgres', () => {
  it('does not install @electric-sql/pglite: an optional peer, imported for types only', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain('@electric-sql/pglite');
    expect(manifest.peerDependencies?.['@electric-sql/pglite']).toBeDefined();
    expect(manifest.peerDependenciesMeta?.['@electric-sql/pglite']?.optional).toBe(true);

    const valueImports: string[] = [];
    for (const file of await sourceFiles(join(ROOT, 'src'))) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(
        /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'@electric-sql\/pglite[^']*'/gm,
      )) {
        if (!match[2]) valueImports.push(`${file}: ${match[0].trim()}`);
      }
      if (/import\(\s*'@electric-sql\/pglite/.test(text)) valueImports.push(`${file}: import()`);
    }
    expect(valueImports).toEqual([]);
  });
});
