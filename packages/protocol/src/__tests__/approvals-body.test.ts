import { describe, expect, it } from 'vitest';
import {
  ApprovalsBodySchema,
  MAX_APPROVAL_ANSWERS,
  ProtocolValidationError,
  parseApprovalsBody,
  safeParseApprovalsBody,
} from '../index';

const yes = { approvalId: 'approval-1', approved: true };
const answers = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ approvalId: `a${index}`, approved: true }));

describe('ApprovalsBodySchema', () => {
  it.each([
    ['one answer', { approvals: [yes] }],
    ['a denial with a reason', { approvals: [{ approvalId: 'x', approved: false, reason: 'no' }] }],
    ['an empty reason', { approvals: [{ ...yes, reason: '' }] }],
    ['the most answers', { approvals: answers(MAX_APPROVAL_ANSWERS) }],
    [
      'the longest id and reason',
      { approvals: [{ approvalId: 'i'.repeat(200), approved: true, reason: 'r'.repeat(2_000) }] },
    ],
  ])('accepts %s', (_name, body) => {
    expect(safeParseApprovalsBody(body)).toEqual({ success: true, data: body });
    expect(parseApprovalsBody(body)).toEqual(body);
  });

  it.each([
    ['no body', undefined, '(root)'],
    ['an array', [yes], '(root)'],
    ['no answers', { approvals: [] }, 'approvals'],
    ['too many answers', { approvals: answers(MAX_APPROVAL_ANSWERS + 1) }, 'approvals'],
    ['one id twice', { approvals: [yes, { ...yes, approved: false }] }, 'approvals'],
    ['an unknown body field', { approvals: [yes], runId: 'r' }, '(root)'],
    ['an unknown answer field', { approvals: [{ ...yes, toolName: 'pay' }] }, 'approvals.0'],
    ['an empty id', { approvals: [{ ...yes, approvalId: '' }] }, 'approvals.0.approvalId'],
    [
      'a long id',
      { approvals: [{ ...yes, approvalId: 'i'.repeat(201) }] },
      'approvals.0.approvalId',
    ],
    [
      'approved as a string',
      { approvals: [{ approvalId: 'a', approved: 'yes' }] },
      'approvals.0.approved',
    ],
    ['no approved', { approvals: [{ approvalId: 'a' }] }, 'approvals.0.approved'],
    ['a reason not a string', { approvals: [{ ...yes, reason: 1 }] }, 'approvals.0.reason'],
    ['a long reason', { approvals: [{ ...yes, reason: 'r'.repeat(2_001) }] }, 'approvals.0.reason'],
  ])('refuses %s, naming the field', (_name, body, path) => {
    const result = safeParseApprovalsBody(body);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(ProtocolValidationError.isInstance(result.error)).toBe(true);
    expect(result.error.schema).toBe('ApprovalsBody');
    expect(result.error.issues[0]?.path).toBe(path);
    expect(() => parseApprovalsBody(body)).toThrow(result.error.message);
  });

  it('composes with full zod, as the runtime stores it', async () => {
    const { z } = await import('zod');
    const stored = z.strictObject({ runId: z.string(), ...ApprovalsBodySchema.shape });
    expect(stored.safeParse({ runId: 'r', approvals: [yes, yes] }).success).toBe(false);
    expect(stored.parse({ runId: 'r', approvals: [yes] })).toEqual({
      runId: 'r',
      approvals: [yes],
    });
  });
});
