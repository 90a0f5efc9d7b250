import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One import that makes a folder depend on another: the importing file and what it names. */
export interface FolderImport {
  from: string;
  to: string;
  /** `path/of/file.ts -> ./specifier` */
  evidence: string[];
}

/** Folders that import each other, directly or around a ring, with the imports that do it. */
export interface FolderLoop {
  folders: string[];
  imports: FolderImport[];
}

/** TypeScript and the components of the Svelte and Vue bindings (their `<script>` imports). */
const SOURCE = /\.(tsx?|svelte|vue)$/;
const TEST = /\.test(-d)?\.tsx?$/;
/** Static imports and re-exports (`import type` too: a type is a dependency), side-effect and dynamic imports. */
const RELATIVE_IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*['"](\.{1,2}\/[^'"]*)['"]|(?:^|\n)\s*import\s*['"](\.{1,2}\/[^'"]*)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*\)/g;

/**
 * The source files (tests left out) of every `packages/<name>/src` — `.ts`, `.tsx`, `.svelte`,
 * `.vue` — by path relative to `root`.
 */
export function readSources(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        if (name !== '__tests__' && name !== 'node_modules') walk(path);
      } else if (SOURCE.test(name) && !TEST.test(name)) {
        sources.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
      }
    }
  };
  const packages = join(root, 'packages');
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, 'src');
    if (existsSync(src)) walk(src);
  }
  return sources;
}

function stripComments(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

/** The folder a specifier names: a folder with an `index.ts`, else the folder of the file. */
function targetFolder(file: string, specifier: string, isFolder: (path: string) => boolean) {
  const target = resolve('/', dirname(file), specifier).slice(1);
  return isFolder(target) ? target : dirname(target);
}

/**
 * The loops between folders of `sources` (path → text, `/`-separated relative paths).
 *
 * An import from folder A to folder B counts between the two folders directly under their
 * common ancestor (`store/x.ts` → `runner/checkpoints/y.ts` is `store` → `runner`): siblings
 * must not import each other around a ring. A folder's own files are the shared kernel of its
 * subfolders, so imports between a folder and its descendants do not count.
 *
 * @example
 * findFolderLoops(new Map([['a/x.ts', "import '../b/y';"], ['b/y.ts', "import '../a/x';"]]));
 * // → [{ folders: ['a', 'b'], imports: [...] }]
 */
export function findFolderLoops(sources: ReadonlyMap<string, string>): FolderLoop[] {
  const folders = new Set<string>();
  for (const path of sources.keys()) {
    for (let folder = dirname(path); folder !== '.'; folder = dirname(folder)) folders.add(folder);
  }
  const isFolder = (path: string) => folders.has(path) && sources.has(`${path}/index.ts`);
  const edges = new Map<string, Map<string, string[]>>();
  for (const [file, text] of sources) {
    for (const match of stripComments(text).matchAll(RELATIVE_IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (specifier === undefined) continue;
      const from = dirname(file).split('/');
      const to = targetFolder(file, specifier, isFolder).split('/');
      let common = 0;
      while (common < from.length && common < to.length && from[common] === to[common]) common++;
      // The same folder, or a folder and its descendant.
      if (common === from.length || common === to.length) continue;
      const a = from.slice(0, common + 1).join('/');
      const b = to.slice(0, common + 1).join('/');
      const out = edges.get(a) ?? new Map<string, string[]>();
      edges.set(a, out);
      out.set(b, [...(out.get(b) ?? []), `${file} -> ${specifier}`]);
    }
  }
  return stronglyConnected(edges)
    .filter((component) => component.length > 1)
    .map((component) => {
      const members = new Set(component);
      const imports: FolderImport[] = [];
      for (const from of [...component].sort()) {
        for (const [to, evidence] of edges.get(from) ?? []) {
          if (members.has(to)) imports.push({ from, to, evidence });
        }
      }
      return { folders: [...component].sort(), imports };
    })
    .sort((x, y) => x.folders.join().localeCompare(y.folders.join()));
}

/** Tarjan's strongly connected components of a directed graph. */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return components;
}
