/**
 * No import loops between folders (issue 38, "a house without loops"): every package's `src`
 * is read, its relative imports collected, and any ring of sibling folders that import each
 * other fails here with the imports that close it. A loop owned and being untangled elsewhere
 * may be listed below with its reason; once it is gone its entry must go too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type FolderLoop, findFolderLoops, readSources } from './folder-loops/find-folder-loops';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Loops known and owned elsewhere: a loop whose folders are all in one entry passes. */
const KNOWN_LOOPS: { folders: string[]; why: string }[] = [];

const known = (loop: FolderLoop) =>
  KNOWN_LOOPS.some((entry) => loop.folders.every((folder) => entry.folders.includes(folder)));

const describeLoop = (loop: FolderLoop) =>
  [
    loop.folders.join(' <-> '),
    ...loop.imports.flatMap(({ from, to, evidence }) => [
      `  ${from} -> ${to}:`,
      ...evidence.map((line) => `    ${line}`),
    ]),
  ].join('\n');

describe('findFolderLoops', () => {
  const loopsOf = (files: Record<string, string>) =>
    findFolderLoops(new Map(Object.entries(files))).map((loop) => loop.folders);

  it.each([
    [
      'two sibling folders importing each other',
      {
        'p/src/a/x.ts': "import { y } from '../b/y';",
        'p/src/b/y.ts': "import type { x } from '../a/x';",
      },
      [['p/src/a', 'p/src/b']],
    ],
    [
      'a ring of three, through a subfolder and a re-export',
      {
        'p/src/a/x.ts': "export { y } from '../b/deep/y';",
        'p/src/b/deep/y.ts': "import {\n  z,\n} from '../../c/z';",
        'p/src/c/z.ts': "const x = await import('../a/x');",
      },
      [['p/src/a', 'p/src/b', 'p/src/c']],
    ],
    [
      'a folder index named by the folder',
      { 'p/src/a/x.ts': "import '../b';", 'p/src/b/index.ts': "import { x } from '../a/x';" },
      [['p/src/a', 'p/src/b']],
    ],
  ])('finds %s', (_name, files, loops) => {
    expect(loopsOf(files)).toEqual(loops);
  });

  it.each([
    [
      'one direction only',
      { 'p/src/a/x.ts': "import { y } from '../b/y';", 'p/src/b/y.ts': 'export const y = 1;' },
    ],
    [
      'a folder and its subfolder (its own files are the subfolder’s kernel)',
      {
        'p/src/a/x.ts': "import { y } from './b/y';",
        'p/src/a/b/y.ts': "import { x } from '../x';",
      },
    ],
    [
      'package imports and commented imports',
      {
        'p/src/a/x.ts': "import { y } from '@scope/b';",
        'p/src/b/y.ts': "// import { x } from '../a/x';\n/* import '../a/x'; */",
      },
    ],
  ])('does not count %s', (_name, files) => {
    expect(loopsOf(files)).toEqual([]);
  });
});

describe('readSources', () => {
  it('reads the Svelte and Vue components too: a loop through a component is a loop', () => {
    const root = mkdtempSync(join(tmpdir(), 'folder-loops-'));
    try {
      const files: Record<string, string> = {
        'packages/p/src/a/status.svelte':
          "<script lang=\"ts\">\n  import { words } from '../b/words';\n</script>\n<!-- import '../c/x'; -->",
        'packages/p/src/b/words.ts': "import Status from '../c/status.vue';",
        'packages/p/src/c/status.vue':
          '<script setup lang="ts">\nimport Inner from \'../a/status.svelte\';\n</script>',
        'packages/p/src/a/status.test.ts': "import '../b/words';",
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      const sources = readSources(root);
      expect([...sources.keys()].sort()).toEqual([
        'packages/p/src/a/status.svelte',
        'packages/p/src/b/words.ts',
        'packages/p/src/c/status.vue',
      ]);
      expect(findFolderLoops(sources).map((loop) => loop.folders)).toEqual([
        ['packages/p/src/a', 'packages/p/src/b', 'packages/p/src/c'],
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the folders of every package', () => {
  const loops = findFolderLoops(readSources(ROOT));

  it('do not import each other in a loop', () => {
    const unknown = loops.filter((loop) => !known(loop)).map(describeLoop);
    expect(unknown, `import loops between folders:\n${unknown.join('\n')}`).toEqual([]);
  });

  it('list no known loop that is gone', () => {
    const gone = KNOWN_LOOPS.filter(
      (entry) => !loops.some((loop) => loop.folders.every((f) => entry.folders.includes(f))),
    ).map((entry) => entry.folders.join(' <-> '));
    expect(gone, 'these loops are gone: delete their KNOWN_LOOPS entries').toEqual([]);
  });
});
