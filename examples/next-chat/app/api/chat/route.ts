import { convertToModelMessages, type UIMessage } from 'ai';
import { chatModel, runlight } from '../../../lib/runlight';

/** The application's start route: starts a run for the chat's messages, answers `{ runId }`. */
export async function POST(request: Request) {
  const body = (await request.json()) as { chatId?: unknown; messages?: unknown };
  if (typeof body.chatId !== 'string' || !Array.isArray(body.messages)) {
    return Response.json(
      { error: { code: 'bad_request', message: 'chatId and messages' } },
      { status: 400 },
    );
  }
  const messages = body.messages as UIMessage[];
  const last = messages.at(-1);
  const prompt = last?.parts.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
  const { store, runtime } = runlight();
  const runId = `${body.chatId.replace(/[^A-Za-z0-9._~:-]/g, '')}-${crypto.randomUUID()}`;
  await store.createRun({ runId });
  runtime.startRun({
    runId,
    model: chatModel(prompt),
    messages: await convertToModelMessages(messages),
  });
  return Response.json({ runId }, { status: 201 });
}
