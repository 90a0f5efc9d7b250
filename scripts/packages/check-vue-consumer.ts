/**
 * `pnpm test:packages` for `@runlight/vue`: the packed tarballs installed with npm into a scratch
 * Vue app of their own (`<scratch>/vue`, outside the workspace, beside the other consumer
 * checks), then
 * - TypeScript: every public name used under strict + exactOptionalPropertyTypes, Runlight's
 *   declarations checked too (`skipLibCheck: false`), and the README's smallest use;
 * - Node ESM: the package imports without a DOM and renders on the server (`check.mjs`);
 * - Vite: the README's smallest use (`src/main.ts`, `src/App.vue`, verbatim) builds with
 *   @vitejs/plugin-vue;
 * - bundle budget: one RunStatus over Vue alone, gzip (`measure.mjs`, fails over 15 KB).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sh, step } from '../steps';

/** What the scratch Vue app installs beside the tarballs. */
const VUE_APP_DEPENDENCIES: Record<string, string> = {
  vue: '^3.5.0',
  ai: '^7.0.173',
  zod: '^4.6.7',
  vite: '8.3.8',
  '@vitejs/plugin-vue': '6.0.11',
  typescript: '5.9.3',
};

/** The Runlight packages a Vue app installs. */
const RUNLIGHT = ['@runlight/vue', '@runlight/client', '@runlight/protocol'];

/** The README blocks whose first line names a file (`// src/main.ts`, `<!-- src/App.vue -->`). */
export function readmeFiles(readme: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const block of readme.matchAll(/^```(?:ts|vue)\n([\s\S]*?)^```/gm)) {
    const body = block[1] ?? '';
    const named = /^(?:\/\/|<!--)\s*(src\/[\w./-]+)/.exec(body);
    if (named?.[1] !== undefined) files.set(named[1], body);
  }
  return files;
}

export async function checkVueConsumer(
  root: string,
  scratch: string,
  tarballs: Map<string, string>,
): Promise<void> {
  const cwd = join(scratch, 'vue');
  await step(`Vue: npm install the tarballs in ${cwd}`, async () => {
    await mkdir(cwd, { recursive: true });
    for (const leftover of [
      'src',
      'pages',
      'dist',
      'node_modules/@runlight',
      'package-lock.json',
    ]) {
      await rm(join(cwd, leftover), { recursive: true, force: true });
    }
    await cp(join(root, 'scripts', 'consumers', 'vue'), cwd, { recursive: true });
    const runlight = Object.fromEntries(
      RUNLIGHT.map((name) => {
        const tarball = tarballs.get(name);
        if (tarball === undefined) throw new Error(`no tarball of ${name}`);
        return [name, `file:${tarball}`];
      }),
    );
    const manifest = {
      name: 'runlight-vue-consumer',
      private: true,
      type: 'module',
      dependencies: { ...runlight, ...VUE_APP_DEPENDENCIES },
      overrides: Object.fromEntries(RUNLIGHT.map((name) => [name, `$${name}`])),
    };
    await writeFile(join(cwd, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await sh(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      cwd,
    );
    const readme = readmeFiles(await readFile(join(root, 'packages', 'vue', 'README.md'), 'utf8'));
    for (const file of ['src/main.ts', 'src/App.vue']) {
      if (!readme.has(file)) throw new Error(`packages/vue/README.md shows no ${file}`);
    }
    // Every file the smallest use shows (App.vue's components too), verbatim.
    for (const [file, text] of readme) await writeFile(join(cwd, file), text);
  });
  await step('Vue: TypeScript, strict + exactOptionalPropertyTypes, the README', async () => {
    const stdout = await new Promise<string>((resolve) => {
      const tsc = join(cwd, 'node_modules', '.bin', 'tsc');
      execFile(tsc, ['-p', 'tsconfig.json', '--pretty', 'false'], { cwd }, (_error, out) =>
        resolve(out),
      );
    });
    const ours = stdout
      .split('\n')
      .filter((line) => / error TS\d+:/.test(line))
      .filter(
        (line) => !line.includes('node_modules/') || line.includes('node_modules/@runlight/'),
      );
    if (
      ours.length > 0 ||
      (ours.length === 0 && stdout.trim() !== '' && !/ error TS/.test(stdout))
    ) {
      throw new Error(`tsc in ${cwd}:\n${ours.length > 0 ? ours.join('\n') : stdout}`);
    }
    const theirs = stdout.split('\n').filter((line) => / error TS\d+:/.test(line)).length;
    console.log(
      `  no errors in Runlight or the usage files; ${theirs} in other packages' declarations`,
    );
  });
  await step('Vue: node ESM, server rendering', async () => {
    const { stdout } = await sh(process.execPath, ['check.mjs'], cwd);
    process.stdout.write(stdout);
  });
  await step("Vue: Vite build of the README's smallest use", async () => {
    await sh(join(cwd, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], cwd);
  });
  await step('Vue: bundle size, one RunStatus over Vue alone', async () => {
    const { stdout } = await sh(process.execPath, ['measure.mjs'], cwd);
    process.stdout.write(stdout);
  });
}
