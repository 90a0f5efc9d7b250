/** What a request wants to do with a run. `history` is for the run-history route. */
export type RunAction = 'read' | 'cancel' | 'approve' | 'start' | 'history';

/** What `authorize` is asked about. */
export interface AuthorizeInput {
  request: Request;
  /** The run (for `start`: the id the new run will get). */
  runId: string;
  action: RunAction;
  /**
   * The chat, on the chat routes (`createChatRoutes`): `start` of the run a send starts, `read`
   * of the chat's latest run for its conversation (and of each run it lists). A chat id is
   * chosen by the client: it grants nothing by itself — check who owns the chat (`chatRuns`).
   */
  chatId?: string;
  /**
   * The chat's existing runs, newest first (at most 20; `[]` for a chat nobody started yet),
   * on the chat-level questions of the chat routes: a send (`start`) and a conversation read
   * (`read` of the latest run, `runId` `''` when there is none). A chat belongs to whoever
   * started its runs: refuse when any of them is not the caller's.
   */
  chatRuns?: readonly string[];
}

/**
 * Decides whether `request` may do `action` on `runId`, before anything is read or changed
 * (`runId` is `''` where no run is named yet: the chat routes ask `start` so before they read
 * a POST's body, and `read` so of a chat without runs):
 * `true` lets it through, `false` answers `403 forbidden`, a `Response` is sent as is (e.g. a
 * `401` with `WWW-Authenticate`). A throw is a `500` with the generic body (the error goes to
 * `onError`).
 */
export type Authorize = (input: AuthorizeInput) => boolean | Response | Promise<boolean | Response>;
