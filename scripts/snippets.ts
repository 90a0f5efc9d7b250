/**
 * Every TypeScript snippet in the README and the package READMEs, as files a consumer app
 * type-checks against the packed packages (`pnpm test:packages`): a snippet that drifts from the
 * API fails `pnpm test`.
 *
 * - Each ```ts / ```tsx block is one module (`export {}` is appended, so blocks never share
 *   names). A block whose first line names a file (`// app/api/[...path]/route.ts — …`) is
 *   written at that path inside its README's folder, so its relative imports resolve to the
 *   sibling snippets the README shows.
 * - Fragments may use the names a README leaves to the reader (`model`, `tools`,
 *   `sessionUser`, …): `snippet-globals.d.ts` in the TypeScript consumer declares them.
 * - A block preceded by `<!-- snippet: skip (reason) -->` is not compiled; the reason is
 *   printed. Use it only for shapes that are not TypeScript (none today).
 * - Blocks with relative imports are app files (Next.js, Vite): they are checked under
 *   `moduleResolution: Bundler` only; every other block under NodeNext and Bundler.
 * - A block preceded by `<!-- snippet: run -->` is a route setup that is also run
 *   (`packages/runtime/test/readme-routes.test.ts`, in `pnpm test:unit`): it starts a real
 *   loopback server with the scripted model and the test starts a run through it. Every block
 *   that starts a server (`.listen(`, `export default app`) must carry it — except in the
 *   getting-started guides (`SCAFFOLD_GUIDES`), whose files the scaffold checks paste into a
 *   freshly generated app and run there (`scripts/scaffolds/scaffold-apps.ts`,
 *   `scripts/scaffolds/scaffold-checks.ts`).
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The Markdown files whose snippets are checked (paths from the repository root). */
export const SNIPPET_SOURCES = [
  'README.md',
  'docs/nextjs.md',
  'docs/vite.md',
  'docs/install.md',
  'docs/use-chat.md',
  'docs/ui-kit.md',
  'docs/how-it-works.md',
  'docs/production.md',
  'docs/ag-ui.md',
  'docs/benchmarks.md',
  'docs/known-limits.md',
  'docs/testing.md',
  'packages/protocol/README.md',
  'packages/runtime/README.md',
  'packages/runtime/src/http/README.md',
  'packages/client/README.md',
  'packages/react/README.md',
  'packages/ai-sdk/README.md',
  'packages/store-postgres/README.md',
  'packages/bus-redis/README.md',
] as const;

/**
 * The getting-started guides: every block whose first line names a file is pasted verbatim into
 * an app the framework's own scaffolder made, which `pnpm test:packages` builds and drives
 * (`scripts/scaffolds/scaffold-apps.ts`, `scripts/scaffolds/scaffold-checks.ts`).
 */
export const SCAFFOLD_GUIDES = { next: 'docs/nextjs.md', vite: 'docs/vite.md' } as const;

export interface Snippet {
  /** `README.md:50` — where the block starts (its fence line). */
  readonly origin: string;
  /** Where the consumer writes it, relative to its snippets folder. */
  readonly file: string;
  readonly code: string;
  /** The block's text as the Markdown shows it. */
  readonly body: string;
  /** The path its first line names (`app/page.tsx`), if any. */
  readonly named: string | undefined;
  /** Relative imports: an app file, checked under Bundler resolution only. */
  readonly bundlerOnly: boolean;
  /** Marked `<!-- snippet: run -->`: a route setup the tests also run against real HTTP. */
  readonly run: boolean;
  /** From a getting-started guide: run by the scaffold checks, not by the route-snippet test. */
  readonly scaffold: boolean;
}

const FENCE = /^```(ts|tsx|typescript)\s*$/;
const NAMED_FILE = /^\/\/\s*([\w.@\-[\]/]+\.(?:ts|tsx|mts))\b/;
const SKIP = /<!--\s*snippet:\s*skip\b([^>]*)-->/;
const RUN = /<!--\s*snippet:\s*run\s*-->/;

const slug = (source: string) => source.replace(/\.md$/, '').replace(/[^\w]+/g, '-');

/** Extracts the snippets of one Markdown text. */
export function extractSnippets(source: string, markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = FENCE.exec(lines[index]!);
    if (fence === null) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]!); index++) {
      body.push(lines[index]!);
    }
    const before = lines.slice(Math.max(0, start - 2), start).join('\n');
    const previous = before.match(SKIP);
    if (previous !== null) {
      console.log(`  snippet ${source}:${start + 1} skipped:${previous[1]}`);
      continue;
    }
    const code = body.join('\n');
    const named = NAMED_FILE.exec(body[0] ?? '')?.[1];
    const extension = fence[1] === 'ts' && !/<[A-Z][\w.]*[\s/>]/.test(code) ? 'ts' : 'tsx';
    const file = join(slug(source), named ?? `block-${start + 1}.${extension}`);
    snippets.push({
      origin: `${source}:${start + 1}`,
      file,
      code: `// ${source}:${start + 1}\n${code}\nexport {};\n`,
      body: `${code}\n`,
      named,
      bundlerOnly: /from\s+['"]\.\.?\//.test(code),
      run: RUN.test(before),
      scaffold: (Object.values(SCAFFOLD_GUIDES) as string[]).includes(source),
    });
  }
  return snippets;
}

/**
 * The snippets of every source that exists (a missing optional source has none). Throws when a
 * guide in `docs/` is not a source: its snippets would go unchecked.
 */
export async function readSnippets(root: string): Promise<Snippet[]> {
  const sources: readonly string[] = SNIPPET_SOURCES;
  const unlisted = (await readdir(join(root, 'docs')))
    .filter((file) => file.endsWith('.md') && !sources.includes(`docs/${file}`))
    .map((file) => `docs/${file}`);
  if (unlisted.length > 0) {
    throw new Error(`add ${unlisted.join(', ')} to SNIPPET_SOURCES (scripts/snippets.ts)`);
  }
  const all: Snippet[] = [];
  for (const source of SNIPPET_SOURCES) {
    const markdown = await readFile(join(root, source), 'utf8').catch(() => null);
    if (markdown !== null) all.push(...extractSnippets(source, markdown));
  }
  return all;
}

/**
 * Writes every README snippet under `snippets/` and a tsconfig per resolution that checks them
 * (app files with relative imports under Bundler only); returns the tsconfig names.
 */
export async function writeSnippets(root: string, cwd: string): Promise<string[]> {
  const snippets = await readSnippets(root);
  await rm(join(cwd, 'snippets'), { recursive: true, force: true });
  for (const snippet of snippets) {
    const target = join(cwd, 'snippets', snippet.file);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, snippet.code);
  }
  const base = JSON.parse(await readFile(join(cwd, 'tsconfig.bundler.json'), 'utf8'));
  const configs: [string, string, boolean][] = [
    ['tsconfig.snippets.nodenext.json', 'NodeNext', false],
    ['tsconfig.snippets.bundler.json', 'Bundler', true],
  ];
  for (const [name, resolution, withApps] of configs) {
    const files = snippets
      .filter((snippet) => withApps || !snippet.bundlerOnly)
      .map((snippet) => `snippets/${snippet.file}`);
    const compilerOptions = {
      ...base.compilerOptions,
      module: resolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
      moduleResolution: resolution,
      // Snippets show a line, not a program: an unused name is not an error in them.
      noUnusedLocals: false,
    };
    const config = { compilerOptions, files: ['snippet-globals.d.ts', ...files] };
    await writeFile(join(cwd, name), `${JSON.stringify(config, null, 2)}\n`);
  }
  console.log(`  ${snippets.length} README snippets`);
  return configs.map(([name]) => name);
}
