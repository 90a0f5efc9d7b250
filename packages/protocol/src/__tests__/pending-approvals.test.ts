import { describe, expect, it } from 'vitest';
import { type PendingApproval, pendingApprovals, type UIMessage } from '../index';

const requested = (toolCallId: string, approvalId: string, extra: object = {}) => ({
  type: 'tool-pay',
  toolCallId,
  state: 'approval-requested',
  input: { amount: 5 },
  approval: { id: approvalId },
  ...extra,
});

// Parts as a stored or served message may hold them: the protocol checks messages loosely.
const message = (...parts: object[]) =>
  ({ id: 'message-1', role: 'assistant', parts }) as unknown as UIMessage;

const pay = (approvalId: string, toolCallId: string): PendingApproval => ({
  approvalId,
  toolCallId,
  toolName: 'pay',
  input: { amount: 5 },
});

describe('pendingApprovals', () => {
  it.each<[string, UIMessage | null | undefined, PendingApproval[]]>([
    ['no message', undefined, []],
    ['a null message (no checkpoint yet)', null, []],
    ['a message without parts', message(), []],
    ['text only', message({ type: 'text', text: 'hi', state: 'done' }), []],
    [
      'one request',
      message({ type: 'step-start' }, requested('call-1', 'a1')),
      [pay('a1', 'call-1')],
    ],
    [
      'a dynamic tool: its toolName',
      message({
        type: 'dynamic-tool',
        toolName: 'search',
        toolCallId: 'call-2',
        state: 'approval-requested',
        input: { q: 'x' },
        approval: { id: 'a2' },
      }),
      [{ approvalId: 'a2', toolCallId: 'call-2', toolName: 'search', input: { q: 'x' } }],
    ],
    [
      'two requests, in part order',
      message(requested('call-2', 'a2'), { type: 'text', text: '…' }, requested('call-1', 'a1')),
      [pay('a2', 'call-2'), pay('a1', 'call-1')],
    ],
    [
      'answered, running, finished and denied calls are not pending',
      message(
        requested('call-1', 'a1', {
          state: 'approval-responded',
          approval: { id: 'a1', approved: true },
        }),
        requested('call-2', 'a2', { state: 'input-available' }),
        requested('call-3', 'a3', { state: 'output-available', output: 1 }),
        requested('call-4', 'a4', { state: 'output-denied' }),
        requested('call-5', 'a5', { state: 'output-error', errorText: 'x' }),
      ),
      [],
    ],
    [
      'a request without an approval object: nothing could answer it',
      message({ type: 'tool-pay', toolCallId: 'call-1', state: 'approval-requested', input: {} }),
      [],
    ],
    ['an approval of null', message(requested('call-1', 'a1', { approval: null })), []],
    ['an approval without an id', message(requested('call-1', 'a1', { approval: {} })), []],
    ['a numeric approval id', message(requested('call-1', 'a1', { approval: { id: 7 } })), []],
    ['an empty approval id', message(requested('call-1', '')), []],
    [
      'an id two parts share: once, at its first part',
      message(requested('call-1', 'a1'), requested('call-2', 'a1')),
      [pay('a1', 'call-1')],
    ],
    [
      'the request beside a malformed one',
      message(requested('call-1', 'a1', { approval: undefined }), requested('call-2', 'a2')),
      [pay('a2', 'call-2')],
    ],
  ])('%s', (_name, input, expected) => {
    expect(pendingApprovals(input)).toEqual(expected);
  });
});
