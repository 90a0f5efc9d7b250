import type { Page } from 'playwright-core';

/** Set by the gallery page: the control requests its components sent. */
declare global {
  interface Window {
    runlightControls: { url: string; body: unknown }[];
  }
}

/**
 * What the registry gallery (`scripts/registry-app`) must show in Chromium, one theme at a
 * time: every state's words, no axe-core violation (WCAG 2.x A/AA, colour contrast included),
 * live regions that do not tick, spinners that stop under reduced motion, and an Approve button
 * filled in the theme's `--primary` (an app without the shadcn variables shows it as plain text,
 * which axe-core alone would pass). The keyboard
 * path through the timeline and the approval card is `expectKeyboardPaths`.
 */

/** The words each state's card must show (its own components' text, not the title). */
const EXPECTED: Record<string, (string | RegExp)[]> = {
  waiting: ['Waiting for the model'],
  retry: [
    /Retrying in \d+ s \(attempt 2 of 3\)/,
    'The provider is rate limiting requests',
    'Retry wait',
  ],
  streaming: ['Writing the answer'],
  working: ['Running tools: searchDocs'],
  'between-steps': ['Preparing the next step', 'Model request'],
  compacting: ['Compacting the context', /started \d/],
  approval: ['Waiting for your approval', 'runCommand', 'rm -rf ./build', 'Approve', 'Deny'],
  'stalled-recovers': [
    'The worker stopped responding — recovering',
    'Another worker will take the run over',
  ],
  'stalled-stuck': ['The worker stopped responding', 'Nothing will resume this run'],
  completed: ['Completed', 'Model request'],
  'failed-provider': ['Failed', 'The model provider failed'],
  'failed-storage': ['Failed', 'The run store was unavailable'],
  'failed-ownership': ['Failed', 'Another worker took over'],
  cancelled: ['Cancelled'],
};

interface AxeResult {
  violations: {
    id: string;
    impact: string;
    help: string;
    nodes: { target: string[]; failureSummary: string }[];
  }[];
  passes: { id: string; nodes: unknown[] }[];
  incomplete: { id: string; nodes: { target: string[]; any: { message: string }[] }[] }[];
}

/**
 * The text screen readers get from each live region (aria-hidden parts left out). A string, so
 * the test runner's transform (which names functions) does not reach the page.
 */
const LIVE_TEXTS = `[...document.querySelectorAll('[aria-live], [role="status"]')].map((region) => {
  const walk = (node) =>
    node.nodeType === Node.TEXT_NODE
      ? node.textContent ?? ''
      : node instanceof Element && node.getAttribute('aria-hidden') === 'true'
        ? ''
        : [...node.childNodes].map(walk).join('');
  return walk(region);
})`;
const liveTexts = (page: Page) => page.evaluate<string[]>(LIVE_TEXTS);

/**
 * The approval card's Approve button, filled in the theme's `--primary` with its own text colour
 * and rounded: the shadcn theme variables reached the app. A string, like `LIVE_TEXTS`.
 */
const APPROVE_STYLE = `(() => {
  const button = [...document.querySelectorAll('[data-slot="runlight-approval-card"] button')]
    .find((element) => element.textContent.startsWith('Approve'));
  if (button === undefined) return null;
  const probe = document.createElement('span');
  probe.style.backgroundColor = 'var(--primary)';
  button.parentElement.append(probe);
  const primary = getComputedStyle(probe).backgroundColor;
  probe.remove();
  const style = getComputedStyle(button);
  return { background: style.backgroundColor, color: style.color, radius: style.borderTopLeftRadius, primary };
})()`;

async function expectStyledApprove(page: Page): Promise<void> {
  const style = await page.evaluate<{
    background: string;
    color: string;
    radius: string;
    primary: string;
  } | null>(APPROVE_STYLE);
  if (style === null) throw new Error('no Approve button in the approval card');
  const transparent = (colour: string) => colour === 'rgba(0, 0, 0, 0)' || colour === 'transparent';
  if (
    transparent(style.background) ||
    style.background !== style.primary ||
    style.color === style.background ||
    style.radius === '0px'
  ) {
    throw new Error(
      `the Approve button is not styled by the theme (${JSON.stringify(style)}): are the shadcn variables (--primary, …) in globals.css?`,
    );
  }
}

async function runAxe(page: Page): Promise<AxeResult> {
  return (await page.evaluate(() =>
    (
      window as unknown as {
        axe: { run: (context: unknown, options: unknown) => Promise<unknown> };
      }
    ).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
      resultTypes: ['violations', 'passes', 'incomplete'],
    }),
  )) as AxeResult;
}

export async function expectGallery(page: Page, axeSource: string): Promise<string> {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.waitForSelector('[data-state="cancelled"]');
  for (const [state, words] of Object.entries(EXPECTED)) {
    const card = page.locator(`[data-state="${state}"]`);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const text = (await card.textContent()) ?? '';
      const missing = words.filter((word) =>
        typeof word === 'string' ? !text.includes(word) : !word.test(text),
      );
      if (missing.length === 0) break;
      if (Date.now() > deadline) {
        throw new Error(`state ${state} lacks ${missing.join(', ')}; it shows: ${text}`);
      }
      await page.waitForTimeout(100);
    }
  }
  await expectStyledApprove(page);
  // Where nothing recovers the run, no status on the card claims that something does.
  const stuck = (await page.locator('[data-state="stalled-stuck"]').textContent()) ?? '';
  if (stuck.includes('recovering')) throw new Error(`stalled-stuck claims recovery: ${stuck}`);
  // The packaged RunStatus (no Tailwind) sits in every card and meets the same bar.
  const packaged = await page.locator('[data-packaged] [data-runlight="status"]').count();
  if (packaged !== Object.keys(EXPECTED).length) {
    throw new Error(`${packaged} packaged RunStatus in ${Object.keys(EXPECTED).length} cards`);
  }
  const retryText = await page.locator('[data-state="retry"] [data-packaged]').textContent();
  if (!/Retrying in \d+ s \(attempt 2 of 3\)/.test(retryText ?? '')) {
    throw new Error(`the packaged RunStatus shows no retry countdown: ${retryText}`);
  }
  const rows = await page.locator('[data-slot="runlight-run-list-row"]').count();
  if (rows !== 5) throw new Error(`the run list shows ${rows} rows, not 5`);

  // Live regions announce changes of phase: over 1.5 s of ticking clocks, none changes.
  const before = await liveTexts(page);
  await page.waitForTimeout(1_500);
  const after = await liveTexts(page);
  const ticking = before.filter((text, index) => text !== after[index]);
  if (ticking.length > 0) throw new Error(`live regions tick: ${ticking.join(' | ')}`);

  const spinning = await page.evaluate(
    () =>
      [...document.querySelectorAll('.animate-spin')].filter(
        (element) => getComputedStyle(element).animationName !== 'none',
      ).length,
  );
  if (spinning > 0) throw new Error(`${spinning} spinners still spin under reduced motion`);

  await page.addScriptTag({ content: axeSource });
  const result = await runAxe(page);
  if (result.violations.length > 0) {
    const lines = result.violations.flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}) ${node.target.join(' ')}: ${node.failureSummary}`,
      ),
    );
    throw new Error(`axe-core: ${result.violations.length} violations\n${lines.join('\n')}`);
  }
  const contrast = result.passes.find((rule) => rule.id === 'color-contrast')?.nodes.length ?? 0;
  const undecided = result.incomplete.find((rule) => rule.id === 'color-contrast')?.nodes ?? [];
  const unsure = undecided
    .map((node) => `${node.target.join(' ')} (${node.any[0]?.message ?? '?'})`)
    .join('; ');
  if (contrast < 40) throw new Error(`axe checked the contrast of only ${contrast} elements`);
  // The check can fail: one status text at 2:1 is one violation.
  await page.addStyleTag({
    content:
      '[data-state="cancelled"] h2 { color: #bbbbbb !important; background: #ffffff !important }',
  });
  const control = await runAxe(page);
  await page.addStyleTag({
    content:
      '[data-state="cancelled"] h2 { color: inherit !important; background: transparent !important }',
  });
  if (!control.violations.some((violation) => violation.id === 'color-contrast')) {
    throw new Error('axe-core did not catch a 2:1 text: the contrast check is not running');
  }
  return `${Object.keys(EXPECTED).length} states, axe: 0 violations (${result.passes.length} rules passed; colour contrast checked on ${contrast} elements; undecided: ${unsure || 'none'})`;
}

/**
 * Keyboard only: Tab from the top reaches the timeline's scroll region, then the approval
 * card's Approve button; Enter sends the answer through `useRunControls` (the request's body
 * is what the run's approval route gets) and the card closes.
 */
export async function expectKeyboardPaths(page: Page): Promise<string> {
  await page.locator('body').focus();
  const path: string[] = [];
  for (let presses = 0; presses < 80; presses++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      if (element === null) return '';
      const slot = element.closest('[data-slot]')?.getAttribute('data-slot') ?? '';
      return `${slot}:${element.tagName.toLowerCase()}:${element.textContent?.trim().slice(0, 20)}`;
    });
    path.push(focused);
    if (focused.startsWith('runlight-approval-card:button:Approve')) break;
  }
  if (!path.some((entry) => entry.startsWith('runlight-run-timeline:div'))) {
    throw new Error(`Tab never reached a timeline's scroll region: ${path.join(' → ')}`);
  }
  if (!path.at(-1)?.startsWith('runlight-approval-card:button:Approve')) {
    throw new Error(`Tab never reached the Approve button: ${path.join(' → ')}`);
  }
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.runlightControls.length === 1);
  const sent = await page.evaluate(() => window.runlightControls[0]);
  const body = JSON.stringify(sent?.body);
  if (
    sent?.url !== '/api/runs/approval/approvals' ||
    !body.includes('"approvalId":"approval-1"') ||
    !body.includes('"approved":true')
  ) {
    throw new Error(`the approval card sent ${JSON.stringify(sent)}`);
  }
  await page.waitForFunction(
    () =>
      document.querySelector(
        '[data-state="approval"] [data-slot="runlight-approval-card"] section',
      ) === null,
  );
  return `keyboard: ${path.length} Tab presses to Approve (timeline region on the way), Enter answered`;
}
