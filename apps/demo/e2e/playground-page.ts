import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { findShownState, recordShownStates, type ShownState } from './shown-states';

export type { ShownState } from './shown-states';

/** Debian's Chromium, as CI installs it (playwright cannot download browsers here). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

export interface TimelineRow {
  id: string;
  kind: string;
  phase: string;
  startedAt: string;
  firstOutputAt: string | null;
  endedAt: string | null;
  result: string;
}

/**
 * Reads the playground through its data-testid attributes. Once `open` ran, the page records
 * every state its run panel renders (`recordShownStates`), and `waitForActivity` waits on that
 * record: it sees a state that lasted one frame, and returns what the page showed at it.
 */
export class PlaygroundPage {
  #recording = false;
  /** Where the last `waitForActivity` matched: later waits look from there on. */
  #cursor: { log: string; index: number } | null = null;

  constructor(readonly page: Page) {}

  async open(url: string): Promise<void> {
    if (!this.#recording) {
      this.#recording = true;
      await this.page.addInitScript(recordShownStates);
    }
    await this.page.goto(url);
    await this.page.getByTestId('scenario-quick-answer').waitFor({ timeout: 60_000 });
  }

  /** Starts a scenario with its button and returns the new run id (from the URL). */
  async start(scenario: string): Promise<string> {
    const before = new URL(this.page.url()).searchParams.get('run');
    await this.page.getByTestId(`scenario-${scenario}`).click();
    await this.page.waitForFunction((previous) => {
      const run = new URLSearchParams(window.location.search).get('run');
      return run !== null && run !== previous;
    }, before);
    const runId = new URL(this.page.url()).searchParams.get('run')!;
    // The first run panel of a cold dev server waits for Vite to compile its modules.
    await this.page
      .locator(`[data-testid="run-panel"][data-run-id="${runId}"]`)
      .waitFor({ timeout: 60_000 });
    return runId;
  }

  /**
   * Waits until the page has shown activity `kind` for the panel's run — now or at any frame
   * since the state the previous wait matched (a reload starts over) — and returns that state
   * as the page rendered it (`null` on a page `open` did not prepare: then it is the current
   * activity).
   */
  async waitForActivity(kind: string, timeout = 30_000): Promise<ShownState | null> {
    const found = await this.page.waitForFunction(
      findShownState,
      { wanted: kind, from: this.#cursor },
      { timeout, polling: 50 },
    );
    const state = (await found.jsonValue()) as ShownState | { kind: string };
    if (!('index' in state)) return null;
    this.#cursor = { log: state.log, index: state.index };
    return state;
  }

  /** Later `waitForActivity` calls look only at what the page shows from now on. */
  async forgetShown(): Promise<void> {
    this.#cursor = await this.page.evaluate(() => {
      const log = window.__runlightShown;
      return log ? { log: log.id, index: Math.max(0, log.states.length - 1) } : null;
    });
  }

  activity(): Promise<string | null> {
    return this.page.getByTestId('activity').getAttribute('data-kind');
  }

  async elapsedMs(): Promise<number> {
    const value = await this.page.getByTestId('elapsed').getAttribute('data-ms');
    return Number(value);
  }

  statusText(): Promise<string> {
    return this.page
      .getByTestId('run-status')
      .textContent()
      .then((text) => text ?? '');
  }

  /** The assistant's text parts, joined. */
  async messageText(): Promise<string> {
    const parts = await this.page.getByTestId('message-text').allInnerTexts();
    return parts.join('\n');
  }

  /** The rows of the page's `RunTimeline`: one per operation, its latest phase and times. */
  async timeline(): Promise<TimelineRow[]> {
    return this.page.$$eval('[data-testid="timeline"] tr[data-runlight-row="operation"]', (rows) =>
      rows.map((row) => ({
        id: row.getAttribute('data-operation-id') ?? '',
        kind: row.getAttribute('data-kind') ?? '',
        phase: row.getAttribute('data-phase') ?? '',
        startedAt: row.getAttribute('data-started-at') ?? '',
        firstOutputAt: row.getAttribute('data-first-output-at'),
        endedAt: row.getAttribute('data-ended-at'),
        result: row.querySelector('[data-runlight-part="result"]')?.textContent ?? '',
      })),
    );
  }

  /** Waits until the timeline has read the run's history. */
  async waitForHistory(): Promise<void> {
    await this.page.waitForFunction(
      () =>
        document.querySelector('[data-testid="timeline"]')?.getAttribute('data-status') === 'ready',
      undefined,
      { timeout: 30_000, polling: 50 },
    );
  }

  /** Everything a visitor (or a screen reader) could get out of the page. */
  async everything(): Promise<string> {
    return this.page.evaluate(
      () => `${document.documentElement.outerHTML}\n${document.body.textContent}`,
    );
  }
}
