import { RunIdSchema } from '@runlight/protocol';
import { z } from 'zod';
import { LATENCY_RANGE, SCENARIO_IDS, TOKEN_RANGE } from '../src/scenario-catalog';

/** `POST /api/demo/runs`: which scenario to start. */
export const StartScenarioBodySchema = z.strictObject({ scenario: z.enum(SCENARIO_IDS) });

/** `POST /api/demo/runs/:id/approvals`: the visitor's answer to one approval request. */
export const ApprovalBodySchema = z.strictObject({
  approvalId: z.string().min(1).max(200),
  approved: z.boolean(),
  reason: z.string().max(500).optional(),
});

/** `POST /api/demo/settings`: store latency and token rate for later calls and runs. */
export const SettingsBodySchema = z
  .strictObject({
    latencyMs: z.number().int().min(LATENCY_RANGE.min).max(LATENCY_RANGE.max).optional(),
    tokenMs: z.number().int().min(TOKEN_RANGE.min).max(TOKEN_RANGE.max).optional(),
  })
  .refine((body) => body.latencyMs !== undefined || body.tokenMs !== undefined, {
    message: 'must set latencyMs or tokenMs',
  });

/** `POST /api/demo/runs/:id/cancel` and `/drop` take an empty object (or no body). */
export const EmptyBodySchema = z.strictObject({});

export { RunIdSchema };
