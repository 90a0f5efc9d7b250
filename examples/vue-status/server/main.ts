import { startExampleServer } from './start-server';

const server = await startExampleServer({ port: Number(process.env.PORT ?? 5174) });
console.log(`Runlight Vue example on ${server.url}`);
