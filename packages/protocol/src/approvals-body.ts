import * as z from 'zod/mini';

/** At most this many answers in one `POST …/runs/:id/approvals` (and one control request). */
export const MAX_APPROVAL_ANSWERS = 100;

/**
 * One user's answer to a tool approval request of the run's assistant message. The id is the
 * `approvalId` of the request part; `reason` is shown to the model with the answer.
 */
export const ApprovalAnswerSchema = z.strictObject({
  approvalId: z.string().check(z.minLength(1), z.maxLength(200)),
  approved: z.boolean(),
  reason: z.optional(z.string().check(z.maxLength(2_000))),
});

export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;

/**
 * The answers of one request: 1 to {@link MAX_APPROVAL_ANSWERS}, each approval id once (two
 * answers to one request could not both be applied). The route, the stored control request and
 * the client all check with this schema, so they cannot disagree.
 */
export const ApprovalAnswersSchema = z.array(ApprovalAnswerSchema).check(
  z.minLength(1),
  z.maxLength(MAX_APPROVAL_ANSWERS),
  z.refine(
    (answers) => new Set(answers.map((answer) => answer.approvalId)).size === answers.length,
    'holds an approvalId twice',
  ),
);

/** The body of `POST …/runs/:id/approvals`: `{ approvals: ApprovalAnswer[] }`, nothing more. */
export const ApprovalsBodySchema = z.strictObject({ approvals: ApprovalAnswersSchema });

export type ApprovalsBody = z.infer<typeof ApprovalsBodySchema>;
