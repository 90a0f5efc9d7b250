import { runlight } from '../../../lib/runlight';

export const dynamic = 'force-dynamic';

const notFound = () =>
  Response.json({ error: { code: 'not_found', message: 'No such route' } }, { status: 404 });

/** The library's run routes: snapshots, events, many runs (`/api/runs/:id`, `/api/run-events`, …). */
export async function GET(request: Request) {
  return (await runlight().router(request)) ?? notFound();
}

/**
 * `POST /api/runs/:id/cancel` and `POST /api/runs/:id/approvals`: the library's router answers
 * them once it has the run-control routes; until then they are served here.
 */
export async function POST(request: Request) {
  const answered = await runlight().router(request);
  if (answered && answered.status !== 405) return answered;
  const match = /\/api\/runs\/([^/]+)\/(cancel|approvals)$/.exec(new URL(request.url).pathname);
  if (!match) return notFound();
  const runId = decodeURIComponent(match[1]!);
  const { runtime } = runlight();
  if (match[2] === 'cancel') runtime.cancelRun(runId);
  else {
    const { approvals } = (await request.json()) as {
      approvals: { approvalId: string; approved: boolean; reason?: string }[];
    };
    runtime.resumeRun({ runId, approvals }).done.catch(() => {});
  }
  return Response.json({ runId }, { status: 202 });
}
