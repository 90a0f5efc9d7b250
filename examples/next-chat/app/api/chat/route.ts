import { fromThisSite, runlight } from '../../../lib/runlight';

export const dynamic = 'force-dynamic';

const forbidden = () =>
  Response.json({ error: { code: 'forbidden', message: 'Not allowed' } }, { status: 403 });

/** `POST /api/chat`: starts the chat's run (from this site's pages only: it costs model calls). */
export const POST = (request: Request) =>
  fromThisSite(request) ? runlight().chat.POST(request) : forbidden();

/** `GET /api/chat?chatId=`: the chat's whole conversation and latest run, for any tab or device. */
export const GET = (request: Request) => runlight().chat.GET(request);
