import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isRunDeltaShape,
  ProtocolValidationError,
  runDeltaShapeError,
  safeParseRunEvent,
} from '../index';

const chunk = fc.oneof(
  fc.record({ type: fc.constant('text-delta'), id: fc.string(), delta: fc.string() }),
  fc.record({ type: fc.constant('text-start'), id: fc.string() }),
  fc.record({ type: fc.constant('reasoning-delta'), id: fc.string(), delta: fc.string() }),
);
const delta = fc.record(
  {
    type: fc.constant('run-delta' as const),
    runId: fc.stringMatching(/^[A-Za-z0-9._~:-]{1,20}$/),
    baseRevision: fc.nat(),
    seq: fc.integer({ min: 1 }),
    fencingToken: fc.integer({ min: 1 }),
    chunk,
  },
  { requiredKeys: ['type', 'runId', 'baseRevision', 'seq', 'chunk'] },
);

/** A break of one envelope field the server acts on, and the field it names. */
const broken = fc.oneof(
  fc.constant(['type', 'run-status']),
  fc.constant(['runId', '']),
  fc.constant(['runId', 7]),
  fc.constant(['baseRevision', -1]),
  fc.constant(['baseRevision', 1.5]),
  fc.constant(['seq', 0]),
  fc.constant(['seq', '3']),
  fc.constant(['fencingToken', 0]),
  fc.constant(['chunk', null]),
  fc.constant(['chunk', { delta: 'no type' }]),
  fc.constant(['chunk', ['text-delta']]),
) as fc.Arbitrary<[string, unknown]>;

describe('isRunDeltaShape (a delta from the bus: the runtime own output)', () => {
  it('accepts every delta the protocol schema accepts', () => {
    fc.assert(
      fc.property(delta, (value) => {
        expect(safeParseRunEvent(value).success).toBe(true);
        expect(isRunDeltaShape(value)).toBe(true);
      }),
    );
  });

  it('refuses a broken envelope field, naming it, as the schema does', () => {
    fc.assert(
      fc.property(delta, broken, (value, [field, bad]) => {
        const wrong = { ...value, [field]: bad };
        expect(safeParseRunEvent(wrong).success).toBe(false);
        expect(isRunDeltaShape(wrong)).toBe(false);
        const error = runDeltaShapeError(wrong);
        expect(error).toBeInstanceOf(ProtocolValidationError);
        expect(error.issues.map((issue) => issue.path)).toContain(field);
      }),
    );
  });

  it('refuses what is not an object', () => {
    for (const value of [null, 3, 'run-delta', [{ type: 'run-delta' }]]) {
      expect(isRunDeltaShape(value)).toBe(false);
      expect(runDeltaShapeError(value).message).toBe(
        'Invalid RunDeltaEvent: (root): must be an object',
      );
    }
  });
});
