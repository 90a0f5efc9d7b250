import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** What the time-travel view shows at its revision. */
export interface TravelView {
  revision: number;
  activity: string | null;
  since: string | null;
  label: string | null;
  state: unknown;
}

interface AxeResult {
  violations: {
    id: string;
    impact: string;
    nodes: { target: unknown; failureSummary?: string }[];
  }[];
}

const require = createRequire(import.meta.url);

/** Reads and drives the devtools panel (in its open shadow root: playwright's CSS pierces it). */
export class DevtoolsPanel {
  constructor(readonly page: Page) {}

  toggle() {
    return this.page.getByTestId('runlight-devtools-toggle');
  }

  panel() {
    return this.page.getByTestId('runlight-devtools');
  }

  slider() {
    return this.page.getByTestId('runlight-devtools-slider');
  }

  /** The time-travel view now. */
  async travel(): Promise<TravelView> {
    const view = this.page.getByTestId('runlight-devtools-travel');
    const text =
      (await this.page.getByTestId('runlight-devtools-travel-state').textContent()) ?? '';
    return {
      revision: Number(await view.getAttribute('data-revision')),
      activity: await view.getAttribute('data-activity'),
      since: await view.getAttribute('data-since'),
      label: await view.getAttribute('data-label'),
      state: text === '' ? null : JSON.parse(text),
    };
  }

  /** The log's rows: revision and type. */
  async logRows(): Promise<{ revision: number; type: string }[]> {
    return this.page.locator('[data-testid="runlight-devtools-log"] tbody tr').evaluateAll((rows) =>
      rows.map((row) => ({
        revision: Number(row.getAttribute('data-revision')),
        type: row.getAttribute('data-type') ?? '',
      })),
    );
  }

  /** axe-core's WCAG A/AA violations inside the devtools (the panel's shadow tree). */
  async axeViolations(): Promise<AxeResult['violations']> {
    const source = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
    if (!(await this.page.evaluate(() => 'axe' in window)))
      await this.page.addScriptTag({ content: source });
    const result = (await this.page.evaluate(() =>
      (
        window as unknown as {
          axe: { run: (context: unknown, options: unknown) => Promise<unknown> };
        }
      ).axe.run(
        { include: [['[data-runlight-devtools]']] },
        {
          runOnly: {
            type: 'tag',
            values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'],
          },
        },
      ),
    )) as AxeResult;
    return result.violations;
  }
}
