// app/api/runs/[...path]/route.ts — GET /api/runs/:id (snapshot), GET /api/runs/:id/events (SSE)
import { createRunRouter } from '@runlight/runtime';
import { runlight } from '../../../../lib/runlight';

export const dynamic = 'force-dynamic';

const route = createRunRouter({
  handlers: runlight.handlers,
  basePath: '/api',
  authorize: runlight.authorize, // asked on every route, before anything is read
});

async function handle(request: Request): Promise<Response> {
  return (await route(request)) ?? new Response('Not found', { status: 404 });
}

export const GET = handle;
export const POST = handle;
