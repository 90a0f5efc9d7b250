/**
 * Fresh apps as a new user makes them: the framework's own scaffolder from npm (pinned to the
 * version checked), then the getting-started guide's files pasted verbatim (every block whose
 * first line names a path, `scripts/snippets.ts`) and the guide's `npm install` lines run with
 * the packed tarballs in place of `@runlight/*` names.
 *
 * Each app lives in `<tmpdir>/runlight-scaffold-<hash of the checkout's path>/<kind>`, outside
 * the workspace (its node_modules must not be found above the app), and keeps its node_modules
 * between runs: everything else is generated afresh each time.
 */
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { extractSnippets, SCAFFOLD_GUIDES } from '../snippets';
import { sh } from '../steps';

export type ScaffoldKind = keyof typeof SCAFFOLD_GUIDES;

/**
 * The scaffolder versions checked (the newest on npm in December 2026), each given a folder name
 * relative to its working directory (`create-vite` mangles an absolute path).
 */
export const SCAFFOLDERS: Record<ScaffoldKind, (dir: string) => [string, string[]]> = {
  // App Router, TypeScript, Tailwind and the rest of its defaults (`cacheComponents: true`).
  next: (dir) => [
    'npx',
    [
      '--yes',
      'create-next-app@16.4.3',
      dir,
      '--yes',
      '--ts',
      '--tailwind',
      '--app',
      '--skip-install',
      '--disable-git',
    ],
  ],
  vite: (dir) => [
    'npm',
    ['create', '--yes', 'vite@9.3.0', dir, '--', '--template', 'react-ts', '--no-interactive'],
  ],
};

/**
 * Components a package README shows that a new app pastes as they are: compiled with the app's
 * own build (the Vite template's `tsc -b`, `noUnusedLocals` and `noUnusedParameters` on), after
 * that README's install lines. Not rendered: the guides' pages are.
 */
const EXTRAS: Record<ScaffoldKind, { readme: string; block: RegExp; file: string }[]> = {
  next: [],
  vite: [{ readme: 'packages/ai-sdk/README.md', block: /^'use client';/, file: 'src/Chat.tsx' }],
};

/** The `npm install` lines of the guide's `sh` blocks, in order, comments dropped. */
export function guideInstallLines(markdown: string): string[][] {
  const lines: string[][] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    for (const line of block[1]?.split('\n') ?? []) {
      const command = line.replace(/#.*$/, '').trim();
      if (command.startsWith('npm install ')) lines.push(command.split(/\s+/).slice(2));
    }
  }
  return lines;
}

/** Runs the scaffolder into `<kind>.fresh` and moves its files into the app (node_modules kept). */
async function generate(scratch: string, kind: ScaffoldKind): Promise<string> {
  const app = join(scratch, kind);
  const fresh = join(scratch, `${kind}.fresh`);
  await mkdir(app, { recursive: true });
  await rm(fresh, { recursive: true, force: true });
  const [command, args] = SCAFFOLDERS[kind](basename(fresh));
  await sh(command, args, scratch);
  for (const entry of await readdir(app)) {
    if (entry !== 'node_modules') await rm(join(app, entry), { recursive: true, force: true });
  }
  for (const entry of await readdir(fresh)) await rename(join(fresh, entry), join(app, entry));
  await rm(fresh, { recursive: true, force: true });
  return app;
}

/**
 * The scaffold's layout loads Google fonts with `next/font/google`, which fetches them at build
 * time: with no network here the build would fail. A team's CI has the network; this check
 * removes the fonts and nothing else.
 */
async function stripGoogleFonts(app: string): Promise<void> {
  const file = join(app, 'app', 'layout.tsx');
  const layout = (await readFile(file, 'utf8'))
    .replace(/^import .* from ["']next\/font\/google["'];?\n/m, '')
    .replace(/^const \w+ = \w+\(\{[\s\S]*?\}\);\n\n?/gm, '')
    .replace(/\$\{\w+\.variable\} /g, '');
  if (/next\/font|\.variable\b/.test(layout)) {
    throw new Error(`could not remove next/font/google from the scaffold's layout:\n${layout}`);
  }
  await writeFile(file, layout);
}

/** Installs the guide's lines, the tarballs in place of `@runlight/*` (also inside them). */
async function installGuideLines(
  app: string,
  lines: string[][],
  tarballs: Map<string, string>,
): Promise<void> {
  await mkdir(join(app, 'tarballs'), { recursive: true });
  const local = new Map<string, string>();
  for (const [name, tarball] of tarballs) {
    await cp(tarball, join(app, 'tarballs', basename(tarball)));
    local.set(name, `tarballs/${basename(tarball)}`);
  }
  const manifestFile = join(app, 'package.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  // The tarballs' own `@runlight/*` ranges resolve to the tarballs (a relative `file:` spec, or
  // npm refuses the override: EOVERRIDE).
  manifest.overrides = Object.fromEntries([...local].map(([name, path]) => [name, `file:${path}`]));
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  // The tarballs change every build: drop them and the lock that pins their hashes.
  await rm(join(app, 'node_modules', '@runlight'), { recursive: true, force: true });
  await rm(join(app, 'package-lock.json'), { force: true });
  for (const specs of lines) {
    const args = specs.map((spec) => (local.has(spec) ? `./${local.get(spec)}` : spec));
    const flags = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
    await sh('npm', ['install', ...flags, ...args], app);
  }
}

/**
 * A fresh app of `kind` with the guide's files and install lines; returns its folder. Throws
 * when the guide shows no file or no install line (the check would then test nothing).
 */
export async function scaffoldApp(
  root: string,
  scratch: string,
  kind: ScaffoldKind,
  tarballs: Map<string, string>,
): Promise<string> {
  const guide = SCAFFOLD_GUIDES[kind];
  const markdown = await readFile(join(root, guide), 'utf8');
  const files = extractSnippets(guide, markdown).filter((snippet) => snippet.named);
  const lines = guideInstallLines(markdown);
  if (files.length === 0 || lines.length === 0) throw new Error(`${guide} shows no app`);
  const app = await generate(scratch, kind);
  if (kind === 'next') await stripGoogleFonts(app);
  for (const file of files) {
    const target = join(app, file.named!);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.body);
  }
  for (const extra of EXTRAS[kind]) {
    const readme = await readFile(join(root, extra.readme), 'utf8');
    const block = extractSnippets(extra.readme, readme).find((snippet) =>
      extra.block.test(snippet.body),
    );
    if (block === undefined) throw new Error(`${extra.readme} no longer shows ${extra.block}`);
    await writeFile(join(app, extra.file), block.body);
    lines.push(...guideInstallLines(readme));
  }
  await installGuideLines(app, lines, tarballs);
  const pasted = [
    ...files.map((file) => file.named),
    ...EXTRAS[kind].map((extra) => `${extra.file} (${extra.readme})`),
  ];
  const installed = lines.map((specs) => `npm install ${specs.join(' ')}`);
  console.log(`  ${guide}: ${pasted.join(', ')}; ${installed.join(' && ')}`);
  return app;
}
