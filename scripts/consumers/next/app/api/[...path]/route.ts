// app/api/[...path]/route.ts — every library route under /api: POST /api/runs (start),
// GET /api/runs/:id (snapshot), …/events (SSE), …/operations, POST …/cancel, …/approvals,
// GET /api/run-events and /api/runs?ids= (many runs on one connection). A catch-all needs
// one segment at least, so `app/api/runs/[...path]` would never see POST /api/runs.
import { createRunRouter } from '@runlight/runtime';
import { runlight } from '../../../lib/runlight';

const route = createRunRouter({
  handlers: runlight.handlers,
  multiplex: runlight.multiplex,
  basePath: '/api',
  authorize: runlight.authorize, // asked on every route, before anything is read
  // A cookie session: refuse start, cancel and approvals sent by other sites (CSRF).
  refuseCrossSite: true,
});

async function handle(request: Request): Promise<Response> {
  return (await route(request)) ?? new Response('Not found', { status: 404 });
}

export const GET = handle;
export const POST = handle;
