/** The packages `pnpm test:packages` publishes, and what a consumer app installs beside them. */

/** The published workspace packages (folder names under `packages/`). */
export const PUBLISHED = [
  'protocol',
  'runtime',
  'client',
  'react',
  'react-devtools',
  'store-postgres',
  'bus-redis',
  'ai-sdk',
  'svelte',
  'cli',
  'vue',
  'ag-ui',
] as const;

/** What a new app installs beside Runlight: the peers (newest in range) and its tools. */
export const CONSUMER_DEPENDENCIES: Record<string, string> = {
  react: '^19.0.0',
  'react-dom': '^19.0.0',
  '@tanstack/react-query': '^5.108.4',
  '@ai-sdk/react': '^4.0.177',
  ai: '^7.0.173',
  zod: '^4.6.7',
  hono: '^4.13.0',
  // The telemetry snippet (packages/runtime/README.md): the OTel SDK 3 line pairs with api 1.10.
  '@opentelemetry/api': '^1.10.0',
  '@opentelemetry/sdk-trace': '^3.1.0',
  '@opentelemetry/sdk-metrics': '^3.1.1',
  '@opentelemetry/exporter-trace-otlp-http': '^0.301.0',
  '@opentelemetry/exporter-metrics-otlp-http': '^0.301.0',
  next: '16.4.6',
  vite: '8.3.8',
  '@vitejs/plugin-react': '5.2.0',
  typescript: '5.9.3',
  '@types/node': '^20.19.0',
  '@types/react': '^19.0.0',
  '@types/react-dom': '^19.0.0',
};
