import type { NextConfig } from 'next';

const config: NextConfig = {
  // The workspace packages ship TypeScript source (until they are built packages).
  transpilePackages: [
    '@runlight/ai-sdk',
    '@runlight/client',
    '@runlight/protocol',
    '@runlight/react',
    '@runlight/runtime',
  ],
  typescript: { tsconfigPath: './tsconfig.json' },
};

export default config;
