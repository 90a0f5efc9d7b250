import type { UIMessage } from '@runlight/protocol';

/*
 * React-only fixtures. Tests import the shared protocol values (RUN_ID, at, snapshot, events …)
 * from `@runlight/test-utils` directly.
 */

/** An assistant message whose one tool call waits for the user's approval. */
export const approvalMessage: UIMessage = {
  id: 'msg-1',
  role: 'assistant',
  parts: [
    {
      type: 'tool-runCommand',
      toolCallId: 'call-1',
      state: 'approval-requested',
      input: { cmd: 'ls' },
      approval: { id: 'approval-1' },
    },
  ] as UIMessage['parts'],
};
