import { runlight } from '../../../lib/runlight';

export const dynamic = 'force-dynamic';

const notFound = () =>
  Response.json({ error: { code: 'not_found', message: 'No such route' } }, { status: 404 });

/**
 * The library's run routes under `/api`: snapshots and events (`GET /api/runs/:id`, `…/events`),
 * many runs (`GET /api/run-events`, `GET /api/runs?ids=`), the chat's start route
 * (`POST /api/runs`) and run control (`POST /api/runs/:id/cancel`, `…/approvals`).
 */
const handle = async (request: Request) => (await runlight().router(request)) ?? notFound();

export const GET = handle;
export const POST = handle;
