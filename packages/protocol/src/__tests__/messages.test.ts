import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { safeParseServedRunSnapshot } from '../validation';

// A browser bundle holds zod/mini only: no locale is configured, so rules without a message of
// their own would read "Invalid input". The protocol's parse functions name them instead.
describe('protocol errors where zod has no locale (zod/mini alone, as in a browser)', () => {
  const run = {
    id: 'run-1',
    status: 'running',
    owner: 'holder-1',
    revision: 2,
    lastOperation: null,
    failure: null,
    leaseExpiresAt: null,
    createdAt: '2026-12-02T13:45:00.000Z',
    updatedAt: '2026-12-02T13:45:00.000Z',
  };
  const snapshot = { run, assistant: null, revision: 2 };

  it('runs without a configured locale (the premise of this test)', () => {
    expect(z.config().localeError).toBeUndefined();
    expect(safeParseServedRunSnapshot(snapshot).success).toBe(true);
  });

  it.each([
    [
      'a wrong type',
      { ...snapshot, revision: '2' },
      'revision',
      'expected number, received string',
    ],
    ['an unknown key', { ...snapshot, token: 'x' }, '(root)', 'unknown key "token"'],
    [
      'a value outside an enum',
      { ...snapshot, run: { ...run, status: 'paused' } },
      'run.status',
      'expected one of "queued"',
    ],
    ['a missing object', { ...snapshot, run: null }, 'run', 'expected object, received null'],
  ])('%s names the field and the rule', (_name, value, path, rule) => {
    const result = safeParseServedRunSnapshot(value);
    if (result.success) throw new Error('accepted');
    const issue = result.error.issues.find((candidate) => candidate.path === path);
    expect(issue?.message, JSON.stringify(result.error.issues)).toContain(rule);
    expect(result.error.message).toContain(`Invalid RunSnapshot: ${path}: `);
    expect(result.error.message).not.toContain('Invalid input');
  });
});
