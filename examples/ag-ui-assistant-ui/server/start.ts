import { fileURLToPath } from 'node:url';
import {
  type ExampleServer,
  type ExampleServerOptions,
  startExampleServer,
} from '@runlight/example-ag-ui/server/start-server';
import react from '@vitejs/plugin-react';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The AG-UI example's server — the same runtime, scripted run and gates — serving this page
 * (a React app: Vite's React plugin) instead of its own.
 */
export function startAssistantUiServer(options: ExampleServerOptions = {}): Promise<ExampleServer> {
  return startExampleServer({ ...options, root: ROOT, plugins: [react()] });
}
