import type { z } from 'zod';

/** A zod error's issues as `StoreRecordError` lists them. */
export function issuesOf(error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.join('.') || '(root)',
    message: issue.message,
  }));
}
