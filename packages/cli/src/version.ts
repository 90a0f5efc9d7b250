import { readFileSync } from 'node:fs';

/**
 * The installed package's version, for `runlight --version`: read from its `package.json` one
 * folder up — from `src/` in the workspace, from `dist/` as published — so a release bump
 * needs no second place to change.
 */
export function cliVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
