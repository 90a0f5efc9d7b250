// Only for the consumer check: starts a scripted run (no model provider, no network).
import { scriptedModel } from '@runlight/runtime/testing';
import { runlight } from '../../../lib/runlight';

export async function POST(request: Request): Promise<Response> {
  const { runId } = (await request.json()) as { runId: string };
  const { done } = runlight.runtime.startRun({
    runId,
    model: scriptedModel([{ firstTokenMs: 50, tokenMs: 5, text: 'Hello from Next.js.' }]),
    messages: [{ role: 'user', content: 'Say hello.' }],
  });
  done.catch(() => {});
  return Response.json({ runId }, { status: 202 });
}
