import { describe, expect, it } from 'vitest';
import { createRunRecovery } from '../../recovery/create-run-recovery';
import { createMemoryDriver } from '../../store/driver/memory-driver';
import { faultyDriver } from '../../testing/fault-driver';
import { scriptedModel } from '../../testing/scripted-model';
import { retrySchedule } from '../writes/retry-schedule';
import { harness, user } from './harness';

describe('issue 21 item 4: a live runner rides out a store outage shorter than its lease', () => {
  it('a terminal commit refused by a store down for 600 ms (4× the old budget) still lands', async () => {
    const driver = faultyDriver(createMemoryDriver());
    driver.inject({ call: 'compareAndSet', when: 'before', times: Number.POSITIVE_INFINITY });
    const h = harness({ driver, leaseMs: 5_000 });
    const heal = new Promise<void>((resolve) =>
      setTimeout(() => {
        driver.heal();
        resolve();
      }, 600),
    );
    const handle = h.runtime.startRun({
      runId: 'run-outage',
      model: scriptedModel([{ text: 'Hello there' }]),
      messages: user('Hi'),
    });
    const [run] = await Promise.all([handle.done, heal]);

    expect(run.status).toBe('completed');
    expect((await h.store.getRun('run-outage')).status).toBe('completed');
  });

  it('a run whose end could not be written during a longer outage is ended by recovery', async () => {
    const driver = faultyDriver(createMemoryDriver());
    const h = harness({ driver, leaseMs: 150 });
    const handle = h.runtime.startRun({
      runId: 'run-long-outage',
      model: scriptedModel([{ text: 'Hello there' }]),
      messages: user('Hi'),
    });
    await handle.created;
    driver.inject({ call: 'compareAndSet', when: 'before', times: Number.POSITIVE_INFINITY });
    await handle.done.catch(() => undefined);
    driver.heal();
    expect((await h.store.getRun('run-long-outage')).status).toBe('running');

    const rescuer = harness({ driver, owner: 'worker-b', leaseMs: 150 });
    const recovery = createRunRecovery({
      store: rescuer.store,
      runtime: rescuer.runtime,
      resolveRun: () => undefined,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await recovery.tick();
    recovery.stop();

    const ended = await h.store.getRun('run-long-outage');
    expect(ended).toMatchObject({ status: 'failed', failure: { code: 'ownership_lost' } });
  });
});

describe('the retry schedule', () => {
  it('backs off exponentially, caps each pause, and gives up once the budget is spent', () => {
    const schedule = retrySchedule(
      { delayMs: 20, maxDelayMs: 100, budgetMs: 10_000, jitter: 0 },
      () => 0.5,
    );
    const tries = schedule.start();
    const pauses = Array.from({ length: 6 }, () => tries.next());
    expect(pauses).toEqual([20, 40, 80, 100, 100, 100]);

    const none = retrySchedule({ budgetMs: 0 }).start();
    expect(none.next()).toBeUndefined();
    const capped = retrySchedule({ attempts: 2, budgetMs: 10_000 }).start();
    expect(capped.next()).toBeDefined();
    expect(capped.next()).toBeUndefined();
  });

  it('jitters each pause within its share', () => {
    const low = retrySchedule({ delayMs: 100, jitter: 0.5 }, () => 0).start();
    const high = retrySchedule({ delayMs: 100, jitter: 0.5 }, () => 1).start();
    expect(low.next()).toBe(50);
    expect(high.next()).toBe(150);
  });
});
