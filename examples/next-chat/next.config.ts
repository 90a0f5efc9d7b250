import type { NextConfig } from 'next';

// The @runlight packages are used as built (`pnpm build` at the workspace root writes their
// dist/), exactly as an app that installed them from npm: no transpilePackages.
const config: NextConfig = {
  typescript: { tsconfigPath: './tsconfig.json' },
};

export default config;
