import type { TabChannel, TabEnvironment, TabLocks } from '../tabs/tab-environment';

interface Waiter {
  tab: FakeTab;
  callback: (lock: unknown) => Promise<void>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * One browser profile in miniature for the tab-sharing tests: `BroadcastChannel`s that deliver
 * only when the test says (`deliver`), in posting order, to every other open channel of the
 * name; Web Locks granted in request order, released when the holder's callback settles or
 * its tab closes. No timer decides anything.
 */
export class FakeBrowser {
  readonly #channels = new Set<{ name: string; tab: FakeTab; listener: (data: unknown) => void }>();
  readonly queue: { from: { tab: FakeTab }; name: string; data: unknown }[] = [];
  readonly #holders = new Map<string, Waiter>();
  readonly #waiters = new Map<string, Waiter[]>();
  readonly tabs: FakeTab[] = [];

  open(): FakeTab {
    const tab = new FakeTab(this);
    this.tabs.push(tab);
    return tab;
  }

  /** Delivers up to `count` queued channel messages; returns how many were delivered. */
  deliver(count = Number.POSITIVE_INFINITY): number {
    let delivered = 0;
    while (delivered < count && this.queue.length > 0) {
      const { from, name, data } = this.queue.shift()!;
      // A tab that closed (crashed) loses what it posted and nobody has read yet.
      if (from.tab.closed) continue;
      for (const channel of [...this.#channels]) {
        if (channel !== from && channel.name === name && !channel.tab.closed)
          channel.listener(structuredClone(data));
      }
      delivered++;
    }
    return delivered;
  }

  /** The tab holding a lock (these tests use one group, so one lock). */
  leader(): FakeTab | undefined {
    return [...this.#holders.values()][0]?.tab;
  }

  /** @internal */
  channel(tab: FakeTab, name: string): TabChannel {
    let listener: (data: unknown) => void = () => {};
    const entry = { name, tab, listener: (data: unknown) => listener(data) };
    this.#channels.add(entry);
    return {
      postMessage: (data) => {
        if (!tab.closed && this.#channels.has(entry))
          this.queue.push({ from: entry, name, data: structuredClone(data) });
      },
      addEventListener: (_type, next) => {
        listener = (data) => next({ data });
      },
      close: () => {
        this.#channels.delete(entry);
      },
    };
  }

  /** @internal */
  request(
    tab: FakeTab,
    name: string,
    signal: AbortSignal | undefined,
    callback: Waiter['callback'],
  ) {
    return new Promise<unknown>((resolve, reject) => {
      if (tab.closed) return;
      const waiter: Waiter = { tab, callback, resolve, reject };
      const waiters = this.#waiters.get(name) ?? [];
      this.#waiters.set(name, waiters);
      waiters.push(waiter);
      signal?.addEventListener('abort', () => {
        const index = waiters.indexOf(waiter);
        if (index < 0) return;
        waiters.splice(index, 1);
        reject(new DOMException('aborted', 'AbortError'));
      });
      this.#grant(name);
    });
  }

  /** @internal */
  closeTab(tab: FakeTab): void {
    for (const [name, waiters] of this.#waiters) {
      this.#waiters.set(
        name,
        waiters.filter((waiter) => waiter.tab !== tab),
      );
    }
    for (const [name, holder] of [...this.#holders]) {
      if (holder.tab === tab) {
        this.#holders.delete(name);
        this.#grant(name);
      }
    }
  }

  #grant(name: string): void {
    if (this.#holders.has(name)) return;
    const next = this.#waiters.get(name)?.shift();
    if (next === undefined) return;
    this.#holders.set(name, next);
    queueMicrotask(() => {
      void next
        .callback({ name })
        .then(next.resolve, next.reject)
        .finally(() => {
          if (this.#holders.get(name) !== next) return;
          this.#holders.delete(name);
          this.#grant(name);
        });
    });
  }
}

/** One tab: its `TabEnvironment`, and what the page lifecycle would do to it. */
export class FakeTab {
  closed = false;
  /** Aborted when the tab closes: its network connections end with it. */
  readonly #network = new AbortController();
  readonly signal = this.#network.signal;
  readonly #sleepers = new Set<(asleep: boolean) => void>();
  readonly environment: TabEnvironment;

  constructor(readonly browser: FakeBrowser) {
    const locks: TabLocks = {
      request: (name, options, callback) => browser.request(this, name, options.signal, callback),
    };
    this.environment = {
      channel: (name) => browser.channel(this, name),
      locks,
      onSleep: (listener) => {
        this.#sleepers.add(listener);
        return () => this.#sleepers.delete(listener);
      },
    };
  }

  /** The tab is gone at once (closed, crashed): no goodbye on the channel, its locks freed. */
  close(): void {
    this.closed = true;
    this.#network.abort(new TypeError('the tab closed'));
    this.browser.closeTab(this);
  }

  sleep(asleep: boolean): void {
    for (const listener of this.#sleepers) listener(asleep);
  }
}
