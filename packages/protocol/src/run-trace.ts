import * as z from 'zod/mini';

/**
 * The trace a run belongs to when the runtime's telemetry is on: the W3C trace context of the
 * run's span, stored with the run when it is created, so every process that executes it (a
 * takeover, a resume after approval) stays in one trace, and a UI can link to it. Ids are
 * lower-case hex (32 and 16 digits); `traceFlags` the W3C flags (1: sampled).
 */
export const RunTraceSchema = z.strictObject({
  traceId: z.string().check(z.regex(/^[0-9a-f]{32}$/, 'must be 32 lower-case hex digits')),
  spanId: z.string().check(z.regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex digits')),
  traceFlags: z.number().check(z.int(), z.minimum(0), z.maximum(255)),
});

export type RunTrace = z.infer<typeof RunTraceSchema>;
