import { startDemoServer } from './start-demo-server';

/** `pnpm demo [--port <n>]` (or `PORT=<n>`); `0` picks a free port and prints it. */
function portFromArgs(): number {
  const index = process.argv.indexOf('--port');
  const text = index >= 0 ? process.argv[index + 1] : process.env.PORT;
  if (text === undefined || text === '') return 5173;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`Invalid port "${text}": use a number from 0 to 65535`);
    process.exit(2);
  }
  return port;
}

const server = await startDemoServer({ port: portFromArgs() });
console.log(`Runlight playground: ${server.url}`);

let closing = false;
const shutdown = () => {
  if (closing) process.exit(1);
  closing = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
