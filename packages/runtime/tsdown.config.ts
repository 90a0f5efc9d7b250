import { defineConfig } from 'tsdown';
import { libraryConfig } from '../../scripts/tsdown-library';

export default defineConfig(
  libraryConfig({
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'otel/index': 'src/otel/index.ts',
      'driver/index': 'src/driver/index.ts',
      // The conformance suites a driver or bus author runs under Vitest (a peer).
      'test-kit/index': 'src/test-kit/index.ts',
    },
    platform: 'node',
  }),
);
