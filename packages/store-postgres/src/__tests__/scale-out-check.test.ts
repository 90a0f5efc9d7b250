import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findMismatches,
  occurrences,
  REPEAT,
  SCRIPTED_ANSWER,
  SENTENCE,
} from '../../examples/scale-out/check';
import { serverLabel, serverPoolConfig, serverUnavailable } from './test-databases';

const START = fileURLToPath(new URL('../../examples/scale-out/start.ts', import.meta.url));
const sentences = [SENTENCE];
const gateways = (a: string, b: string) => [
  { label: 'gateway-a', text: a },
  { label: 'gateway-b', text: b },
];

describe('the scale-out check (pnpm example:scale-out --check)', () => {
  it('passes when the store and every gateway hold the scripted answer', () => {
    expect(occurrences(SCRIPTED_ANSWER, SENTENCE)).toBe(REPEAT);
    const input = { expected: SCRIPTED_ANSWER, sentences, stored: SCRIPTED_ANSWER };
    expect(
      findMismatches({ ...input, gateways: gateways(SCRIPTED_ANSWER, SCRIPTED_ANSWER) }),
    ).toEqual([]);
  });

  it('fails when both gateways agree but duplicate a sentence, naming its count', () => {
    const doubled = `${SCRIPTED_ANSWER}${SENTENCE} `;
    const problems = findMismatches({
      expected: SCRIPTED_ANSWER,
      sentences,
      stored: SCRIPTED_ANSWER,
      gateways: gateways(doubled, doubled),
    });
    expect(problems).toHaveLength(4); // each gateway, against the store and the script
    for (const problem of problems) expect(problem).toContain(`×${REPEAT + 1} (expected`);
    expect(problems[0]).toMatch(/^gateway-a vs store: /);
  });

  it('fails when both gateways lose text', () => {
    const truncated = SCRIPTED_ANSWER.slice(0, SCRIPTED_ANSWER.length - 20);
    const problems = findMismatches({
      expected: SCRIPTED_ANSWER,
      sentences,
      stored: SCRIPTED_ANSWER,
      gateways: gateways(truncated, truncated),
    });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toContain(`×${REPEAT - 1} (expected "${SENTENCE}" ×${REPEAT})`);
  });

  it('fails when the store and the gateways agree on a wrong answer', () => {
    const wrong = `${SENTENCE} `.repeat(REPEAT * 2);
    const problems = findMismatches({
      expected: SCRIPTED_ANSWER,
      sentences,
      stored: wrong,
      gateways: gateways(wrong, wrong),
    });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'store vs scripted answer',
      'gateway-a vs scripted answer',
      'gateway-b vs scripted answer',
    ]);
  });

  it('fails when one gateway differs from the store, or none was followed', () => {
    const problems = findMismatches({
      expected: SCRIPTED_ANSWER,
      sentences,
      stored: SCRIPTED_ANSWER,
      gateways: gateways(SCRIPTED_ANSWER, `${SENTENCE} `),
    });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'gateway-b vs store',
      'gateway-b vs scripted answer',
    ]);
    expect(findMismatches({ expected: '', sentences, stored: '', gateways: [] })).toEqual([
      'no gateway was followed',
    ]);
  });
});

describe.runIf(serverUnavailable === null)(`the scale-out check on the ${serverLabel}`, () => {
  const schema = `rl_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const pool = new pg.Pool(serverPoolConfig());
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('runs 1 runner + 2 gateways, follows one run on both and exits 0', async () => {
    const { user, host, port, database } = serverPoolConfig();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=@runlight/source', START, '--check'],
      {
        env: {
          ...process.env,
          DATABASE_URL: `postgres://${user}@${host}:${port}/${database}`,
          RUNLIGHT_SCHEMA: schema,
        },
        timeout: 90_000,
      },
    );
    expect(stdout).toContain(`check passed`);
    expect(stdout).toContain(`×${REPEAT}`);
  });
});
