/**
 * Each published package's `engines.node` tells the truth about what it brings: every package
 * it installs or asks the app for (its `dependencies` and required peers, transitively, as npm
 * laid them out in the consumer app) must accept the oldest Node the package accepts — except
 * the AI SDK 7 packages (`AHEAD`), which declare a newer floor than they need; docs/install.md
 * says so, and CI runs every test on Node 20 with them.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import semver from 'semver';

/**
 * docs/install.md: `ai` 7 (and its `@ai-sdk/*` packages) declare Node ≥ 22; npm warns
 * `EBADENGINE` on 20, where they run. Only this exact floor is let through: a newer one fails.
 */
export const AHEAD = { names: /^(ai|@ai-sdk\/[^/]+)$/, node: '>=22' };

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Node's lookup: `<dir>/node_modules/<name>`, then each folder above, up to `top`. */
async function resolve(name: string, from: string, top: string) {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', name, 'package.json');
    try {
      return { dir: dirname(file), manifest: JSON.parse(await readFile(file, 'utf8')) as Manifest };
    } catch {
      if (dir === top || dirname(dir) === dir) return undefined;
    }
  }
}

/** What breaks the rule, as `@runlight/x > dep > dep@1.2.3 needs node >=22 (…)` lines. */
export async function checkEngines(app: string, packages: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const name of packages) {
    const own = await resolve(`@runlight/${name}`, app, app);
    if (own === undefined) throw new Error(`@runlight/${name} is not installed in ${app}`);
    const range = own.manifest.engines?.node;
    const floor = range === undefined ? null : semver.minVersion(range);
    if (range === undefined || floor === null) {
      problems.push(`@runlight/${name} declares no engines.node`);
      continue;
    }
    const seen = new Set<string>();
    const visit = async (dir: string, manifest: Manifest, path: string[], peers: boolean) => {
      const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });
      const peerNames = peers
        ? Object.keys(manifest.peerDependencies ?? {}).filter(
            (peer) => !manifest.peerDependenciesMeta?.[peer]?.optional,
          )
        : [];
      for (const dependency of [...names, ...peerNames]) {
        if (dependency.startsWith('@runlight/')) continue; // checked as itself
        const found = await resolve(dependency, dir, app);
        if (found === undefined) continue; // an optional dependency npm skipped
        const key = `${found.manifest.name}@${found.manifest.version}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const needs = found.manifest.engines?.node;
        const ahead = AHEAD.names.test(found.manifest.name) && needs === AHEAD.node;
        if (needs !== undefined && !ahead && !semver.satisfies(floor, needs)) {
          problems.push(
            `${[...path, key].join(' > ')} needs node ${needs}; @runlight/${name} says ${range}`,
          );
        }
        await visit(found.dir, found.manifest, [...path, dependency], false);
      }
    };
    await visit(own.dir, own.manifest, [`@runlight/${name}`], true);
  }
  return problems;
}
