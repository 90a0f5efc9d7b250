/**
 * Every size the documents state, checked against the figure the measuring script just wrote
 * (`sizes.json` of `consumers/bundle-size`, `consumers/vue`, `consumers/svelte`): a figure that
 * drifted from the measurement fails `pnpm test:packages`, naming the document, its words and
 * both numbers (issue 45 item 8 — the Vue README said +24.7 KB while the script printed +25.1).
 * A document's words may break across lines: whitespace is folded before matching.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One stated size: where, the words around its number (one capture group), what was measured. */
export interface DocumentedSize {
  readonly file: string;
  readonly pattern: RegExp;
  /** The measured size in bytes. */
  readonly bytes: number;
  /** How the document states it: KB with one decimal (1024 bytes), or whole bytes. */
  readonly unit: 'KB' | 'B';
}

/** What `bytes` reads as in a document's unit, as the measuring scripts print it. */
export function statedAs(bytes: number, unit: DocumentedSize['unit']): string {
  return unit === 'KB' ? (bytes / 1024).toFixed(1) : String(bytes);
}

/**
 * The documented sizes that differ from the measurement (or that a document no longer states),
 * in words; empty when every one matches.
 *
 * @example
 * const problems = await documentedSizeProblems(root, [
 *   { file: 'packages/vue/README.md', pattern: /adds (\d+\.\d) KB over Vue/, bytes: 25_702, unit: 'KB' },
 * ]);
 */
export async function documentedSizeProblems(
  root: string,
  sizes: readonly DocumentedSize[],
): Promise<string[]> {
  const problems: string[] = [];
  const texts = new Map<string, string>();
  for (const { file, pattern, bytes, unit } of sizes) {
    let text = texts.get(file);
    if (text === undefined) {
      text = (await readFile(join(root, file), 'utf8')).replace(/\s+/g, ' ');
      texts.set(file, text);
    }
    const measured = statedAs(bytes, unit);
    const found = pattern.exec(text);
    if (found === null) {
      problems.push(`${file} no longer states /${pattern.source}/ (measured: ${measured} ${unit})`);
    } else if (found[1] !== measured) {
      problems.push(
        `${file} says ${found[1]} ${unit} ("${found[0]}"); the measurement: ${measured} ${unit}`,
      );
    }
  }
  return problems;
}

/** Throws with every drifted figure, after the measuring script in `cwd` wrote `sizes.json`. */
export async function checkDocumentedSizes(
  root: string,
  cwd: string,
  figures: (sizes: Record<string, { gzip: number; lazy?: number }>) => DocumentedSize[],
): Promise<void> {
  const sizes = JSON.parse(await readFile(join(cwd, 'sizes.json'), 'utf8'));
  const problems = await documentedSizeProblems(root, figures(sizes));
  if (problems.length > 0) {
    throw new Error(`documented sizes differ from the measurement:\n${problems.join('\n')}`);
  }
}

type Sizes = Record<string, { gzip: number; lazy?: number }>;
const over = (sizes: Sizes, page: string, base: string) => sizes[page]!.gzip - sizes[base]!.gzip;

/** What the React pages' measurement (`consumers/bundle-size`) backs in the documents. */
export const reactPageSizes = (sizes: Sizes): DocumentedSize[] => [
  {
    file: 'docs/testing.md',
    pattern: /must add ≤ [\d.]+ KB gzip; about \+(\d+\.\d) KB\)/,
    bytes: over(sizes, 'run-status', 'baseline'),
    unit: 'KB',
  },
  {
    file: 'packages/react-devtools/README.md',
    pattern: /the panel's chunk is (\d+\.\d) KB gzip, loaded lazily/,
    bytes: sizes['run-status-devtools-production']!.lazy ?? 0,
    unit: 'KB',
  },
  {
    file: 'packages/react-devtools/README.md',
    pattern: /the page itself grows by (\d+\.\d) KB gzip/,
    bytes: over(sizes, 'run-status-devtools-production', 'run-status'),
    unit: 'KB',
  },
];

/** What the Vue pages' measurement (`consumers/vue`) backs in the documents. */
export const vuePageSizes = (sizes: Sizes): DocumentedSize[] => [
  {
    file: 'packages/vue/README.md',
    pattern: /one `RunStatus` adds (\d+\.\d) KB over Vue alone/,
    bytes: over(sizes, 'run-status', 'baseline'),
    unit: 'KB',
  },
  {
    file: 'packages/vue/README.md',
    pattern: /(\d+\.\d) KB is `@runlight\/client` itself/,
    bytes: over(sizes, 'client-only', 'baseline'),
    unit: 'KB',
  },
  {
    file: 'packages/vue/README.md',
    pattern: /(\d+\.\d) KB is this package/,
    bytes: over(sizes, 'run-status', 'client-only'),
    unit: 'KB',
  },
];

/** What the Svelte pages' measurement (`consumers/svelte`) backs in the documents. */
export const sveltePageSizes = (sizes: Sizes): DocumentedSize[] => [
  {
    file: 'packages/svelte/README.md',
    pattern: /adds (\d+\.\d) KB gzip to a Svelte 5 page/,
    bytes: over(sizes, 'run-status', 'baseline'),
    unit: 'KB',
  },
  {
    file: 'packages/svelte/README.md',
    pattern: /(\d+\.\d) KB is the headless client/,
    bytes: over(sizes, 'client-only', 'baseline'),
    unit: 'KB',
  },
  {
    file: 'packages/svelte/README.md',
    pattern: /(\d+\.\d) KB this binding/,
    bytes: over(sizes, 'run-status', 'client-only'),
    unit: 'KB',
  },
  {
    file: 'docs/testing.md',
    pattern: /about \+(\d+\.\d) KB gzip, \+\d+\.\d KB of it the headless client/,
    bytes: over(sizes, 'run-status', 'baseline'),
    unit: 'KB',
  },
  {
    file: 'docs/testing.md',
    pattern: /\+(\d+\.\d) KB of it the headless client/,
    bytes: over(sizes, 'client-only', 'baseline'),
    unit: 'KB',
  },
];
