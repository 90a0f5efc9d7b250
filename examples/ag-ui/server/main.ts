import { startExampleServer } from './start-server';

const server = await startExampleServer({ port: Number(process.env.PORT ?? 5175) });
console.log(`Runlight AG-UI example on ${server.url}`);
