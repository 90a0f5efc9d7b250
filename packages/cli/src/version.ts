/** The package version, printed by `runlight --version` (kept equal to package.json by a test). */
export const VERSION = '0.1.0';
