import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('..', import.meta.url));
/** Modules the core may never import: a UI framework, or a package that binds one. */
const FRAMEWORK =
  /^(react|react-dom|vue|svelte|solid-js|preact|@tanstack\/react-|@runlight\/react)(\/|$)/;

async function sources(folder: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== '__tests__') files.push(...(await sources(path)));
    else if (/\.tsx?$/.test(entry.name)) files.push(path);
  }
  return files;
}

describe('@runlight/client is framework-free', () => {
  // DESIGN.md: what a run's state means (activity, labels, timeline rows) is computed outside
  // any UI framework, so every binding, the devtools and the CLI say the same from the same code.
  it('no source file imports a UI framework or a binding of one', async () => {
    const offenders: string[] = [];
    for (const file of await sources(SOURCE)) {
      const text = await readFile(file, 'utf8');
      for (const [, specifier] of text.matchAll(
        /\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g,
      )) {
        if (specifier !== undefined && FRAMEWORK.test(specifier))
          offenders.push(`${file}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
