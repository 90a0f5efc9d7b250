/**
 * The install commands of the READMEs, run literally with npm on this machine's Node (CI's: 20),
 * each README in an empty app of its own, with the packed tarballs in place of `@runlight/*`
 * names. On Node 20 npm skips the majors whose `engines` do not match, so an unpinned `ai`
 * would install AI SDK 6 and the Runlight packages would then fail with `ERESOLVE`; this fails
 * on any `ERESOLVE` (error or warning), on any problem `npm ls` reports (an invalid or missing
 * peer), and on any copy of an AI SDK 7-era package in another major than the one Runlight is
 * built on (`MAJORS`) or than the line pins.
 *
 * The commands are the `npm install` lines of the `sh` blocks and the inline `npm install …`
 * spans of README.md, of the guides (`GUIDES`) and of each `packages/<name>/README.md` (one app
 * each, its commands in order).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The majors Runlight is built and tested on. */
export const MAJORS: Record<string, number> = {
  ai: 7,
  zod: 4,
  react: 19,
  'react-dom': 19,
  '@tanstack/react-query': 5,
  '@ai-sdk/react': 4,
  '@ai-sdk/openai': 4,
  '@ai-sdk/openai-compatible': 3,
  pg: 8,
};

/** Every `npm install …` command of a README, in order, comments dropped. */
export function installCommands(readme: string): string[][] {
  const commands: string[] = [];
  const blocks = readme.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm);
  const fenced = new Set<number>();
  for (const block of blocks) {
    for (let index = block.index; index < block.index + block[0].length; index++) {
      fenced.add(index);
    }
    for (const line of block[1]?.split('\n') ?? []) {
      const command = line.replace(/#.*$/, '').trim();
      if (command.startsWith('npm install ')) commands.push(command);
    }
  }
  for (const span of readme.matchAll(/`(npm install [^`]+)`/g)) {
    if (!fenced.has(span.index)) commands.push(span[1] ?? '');
  }
  return commands.map((command) => command.split(/\s+/).slice(2));
}

/** `name@^7` → `['name', 7]`; a scoped name keeps its first `@`. */
function pinned(spec: string): [string, number] | undefined {
  const match = /^(@?[^@]+)@\^?(\d+)/.exec(spec);
  return match?.[1] && match[2] ? [match[1], Number(match[2])] : undefined;
}

interface NpmTree {
  version?: string;
  dependencies?: Record<string, NpmTree>;
  problems?: string[];
}

/**
 * A copy that belongs to AG-UI's packages alone and never meets Runlight's: `@ag-ui/client`
 * 1.0 depends on zod 3 for its own event validation, and npm nests `@ag-ui/core` and
 * `@ag-ui/proto` (whose zod peer is optional) beside it with that copy
 * (`@runlight/ag-ui/client` extends its `AbstractAgent`; no zod schema crosses between them).
 */
function privateCopy(name: string, path: readonly string[]): boolean {
  return name === 'zod' && path.includes('@ag-ui/client');
}

function wrongMajors(tree: NpmTree, majors: Record<string, number>, path: string[]): string[] {
  const wrong: string[] = [];
  for (const [name, child] of Object.entries(tree.dependencies ?? {})) {
    const major = majors[name];
    const actual = Number(child.version?.split('.')[0]);
    if (privateCopy(name, path)) continue;
    if (major !== undefined && child.version !== undefined && actual !== major) {
      wrong.push(`${[...path, `${name}@${child.version}`].join(' > ')} (wants ${major}.x)`);
    }
    wrong.push(...wrongMajors(child, majors, [...path, name]));
  }
  return wrong;
}

async function npm(args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return Object.assign(new Error(`npm ${args.join(' ')} failed in ${cwd}`), {
      output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    });
  }
}

/** Runs one README's commands in a fresh app at `cwd`; returns what went wrong. */
async function installApp(
  cwd: string,
  commands: string[][],
  tarballs: Map<string, string>,
): Promise<string[]> {
  await rm(cwd, { recursive: true, force: true });
  await mkdir(join(cwd, 'tarballs'), { recursive: true });
  const local = new Map<string, string>();
  for (const [name, tarball] of tarballs) {
    await cp(tarball, join(cwd, 'tarballs', basename(tarball)));
    local.set(name, `tarballs/${basename(tarball)}`);
  }
  // The tarballs' own `@runlight/*` ranges resolve to the tarballs, not the registry; the
  // override's spec is the one `npm install ./tarballs/…` writes, or npm refuses (EOVERRIDE).
  const overrides = Object.fromEntries([...local].map(([name, path]) => [name, `file:${path}`]));
  const manifest = { name: 'runlight-install-lines', private: true, type: 'module', overrides };
  await writeFile(join(cwd, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const problems: string[] = [];
  const majors = { ...MAJORS };
  for (const specs of commands) {
    const args = specs.map((spec) => {
      const path = local.get(spec);
      if (spec.startsWith('@runlight/') && path === undefined) {
        problems.push(`\`npm install ${specs.join(' ')}\` names ${spec}, which is not published`);
      }
      return path === undefined ? spec : `./${path}`;
    });
    for (const spec of specs) {
      const pin = pinned(spec);
      if (pin) majors[pin[0]] = pin[1];
    }
    const output = await npm(
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...args],
      cwd,
    );
    const text = output instanceof Error ? (output as Error & { output: string }).output : output;
    if (output instanceof Error || /ERESOLVE/.test(text)) {
      problems.push(`\`npm install ${specs.join(' ')}\`:\n${text}`);
      return problems;
    }
  }
  const listed = await npm(['ls', '--all', '--json'], cwd);
  const json = listed instanceof Error ? (listed as Error & { output: string }).output : listed;
  const tree = JSON.parse(json.slice(json.indexOf('{'))) as NpmTree;
  problems.push(...(tree.problems ?? []), ...wrongMajors(tree, majors, []));
  return problems;
}

/** The guides in `docs/` whose install lines are checked like a README's. */
const GUIDES = ['docs/install.md', 'docs/nextjs.md', 'docs/vite.md'];

/** Every README's install commands, each README in its own app under `scratch`. */
export async function checkInstallLines(
  root: string,
  scratch: string,
  tarballs: Map<string, string>,
  packages: readonly string[],
): Promise<void> {
  const readmes = ['README.md', ...GUIDES, ...packages.map((name) => `packages/${name}/README.md`)];
  const failures: string[] = [];
  await Promise.all(
    readmes.map(async (readme) => {
      const commands = installCommands(await readFile(join(root, readme), 'utf8'));
      if (readme.startsWith('packages/') && commands.length === 0) {
        failures.push(`${readme} has no npm install line`);
        return;
      }
      const folder = readme.replace(/\/?README\.md$/, '').replace(/\.md$/, '') || 'root';
      const app = join(scratch, 'install-lines', folder);
      const problems = await installApp(app, commands, tarballs);
      console.log(
        `  ${readme}: ${commands.map((specs) => `npm install ${specs.join(' ')}`).join(' && ')}` +
          (problems.length === 0 ? ' → ok' : ''),
      );
      failures.push(...problems.map((problem) => `${readme}: ${problem}`));
    }),
  );
  if (failures.length > 0) throw new Error(`README install lines:\n${failures.join('\n')}`);
}
