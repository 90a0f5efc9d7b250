import { startAssistantUiServer } from './start';

const server = await startAssistantUiServer({ port: Number(process.env.PORT ?? 5176) });
console.log(`Runlight in assistant-ui on ${server.url}`);
