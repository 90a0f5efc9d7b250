/** One state of the run panel as the page rendered it (a frame, however short). */
export interface ShownState {
  /** Its place in the page's log (from 0; a reload starts a new log). */
  index: number;
  /** The log it is in: a new one per document (reload, navigation). */
  log: string;
  /** The run panel's run. */
  runId: string | null;
  /** The activity's `data-kind`. */
  kind: string | null;
  /** `RunStatus`'s text. */
  status: string;
  /** The activity's "Since" clock. */
  since: string;
  /** The elapsed time's `data-ms` (not part of what makes a state new). */
  elapsedMs: number | null;
  /** The run record's owner as shown. */
  owner: string;
  /** The assistant's text parts, joined. */
  text: string;
  /** The client generation (`#1`, `#2` after "fresh client"). */
  client: string;
}

export interface ShownLog {
  id: string;
  states: ShownState[];
}

declare global {
  interface Window {
    __runlightShown?: ShownLog;
  }
}

/**
 * Runs in the page before its scripts (`page.addInitScript`): a MutationObserver that appends
 * every distinct state the run panel renders to `window.__runlightShown`, so a test sees a
 * state that lasted one frame and can read what the page showed *at* it. Self-contained: it is
 * serialised into the page.
 */
export function recordShownStates(): void {
  const log: ShownLog = { id: Math.random().toString(36).slice(2), states: [] };
  window.__runlightShown = log;
  let last = '';
  const read = () => {
    const panel = document.querySelector('[data-testid="run-panel"]');
    const activity = panel?.querySelector('[data-testid="activity"]');
    if (!panel || !activity) return;
    const text = (id: string) => panel.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
    const elapsed = panel.querySelector('[data-testid="elapsed"]')?.getAttribute('data-ms');
    const state = {
      runId: panel.getAttribute('data-run-id'),
      kind: activity.getAttribute('data-kind'),
      status: text('run-status'),
      since: text('since'),
      owner: text('owner'),
      text: [...document.querySelectorAll('[data-testid="message-text"]')]
        .map((part) => part.textContent ?? '')
        .join(''),
      client: text('client-generation'),
    };
    const key = JSON.stringify(state);
    if (key === last) return;
    last = key;
    log.states.push({
      ...state,
      index: log.states.length,
      log: log.id,
      elapsedMs: elapsed ? Number(elapsed) : null,
    });
  };
  new MutationObserver(read).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
}

/**
 * Runs in the page: the first state at or after `from` (in the same log) whose activity is
 * `wanted` for the run panel's current run, or `false`. A page without the recorder answers
 * from what it shows now.
 */
export function findShownState(args: {
  wanted: string;
  from: { log: string; index: number } | null;
}): ShownState | Pick<ShownState, 'kind'> | false {
  const log = window.__runlightShown;
  const panel = document.querySelector('[data-testid="run-panel"]');
  if (!log) {
    const kind = panel?.querySelector('[data-testid="activity"]')?.getAttribute('data-kind');
    return kind === args.wanted ? { kind } : false;
  }
  const runId = panel?.getAttribute('data-run-id') ?? null;
  const start = args.from?.log === log.id ? args.from.index : 0;
  for (let index = start; index < log.states.length; index++) {
    const state = log.states[index]!;
    if (state.kind === args.wanted && state.runId === runId) return state;
  }
  return false;
}
