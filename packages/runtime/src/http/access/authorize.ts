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
   * of the chat's latest run for its conversation.
   */
  chatId?: string;
}

/**
 * Decides whether `request` may do `action` on `runId`, before anything is read or changed:
 * `true` lets it through, `false` answers `403 forbidden`, a `Response` is sent as is (e.g. a
 * `401` with `WWW-Authenticate`). A throw is a `500` with the generic body (the error goes to
 * `onError`).
 */
export type Authorize = (input: AuthorizeInput) => boolean | Response | Promise<boolean | Response>;
