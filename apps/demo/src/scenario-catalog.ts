/**
 * The playground's scenarios, shared by the server (which runs them) and the page (which
 * offers them as buttons). Pure data: no I/O, safe in both worlds.
 */
export const SCENARIOS = [
  {
    id: 'history-retry',
    label: 'Where did the time go',
    description:
      'Three steps with tools, compaction before each, a first request that fails and is retried.',
  },
  {
    id: 'quick-answer',
    label: 'Quick answer',
    description: 'One model request that streams a short answer.',
  },
  {
    id: 'slow-first-token',
    label: 'Slow first token',
    description: 'Several seconds of provider wait before the first output, then streaming.',
  },
  {
    id: 'tool-steps',
    label: 'Multi-step tools',
    description: 'Three model requests with tool calls and results in between.',
  },
  {
    id: 'approval',
    label: 'Tool needs approval',
    description: 'The model asks to delete files; the run waits for Approve or Deny.',
  },
  {
    id: 'retry-compaction-approval',
    label: 'Retry, compaction, approval',
    description:
      'Compaction summarises first, the model request fails and is retried, then a tool waits for Approve or Deny.',
  },
  {
    id: 'compaction',
    label: 'Compaction',
    description: 'Compaction before each step: not_needed first, then compacted.',
  },
  {
    id: 'provider-failure',
    label: 'Provider failure',
    description: 'The provider breaks off mid-stream; its error text stays in the server log.',
  },
  {
    id: 'storage-conflict',
    label: 'Storage conflict',
    description: 'Another writer wins a compare-and-set: the run ends storage_conflict.',
  },
  {
    id: 'lease-stolen',
    label: 'Lease stolen',
    description:
      'worker-a is cut off from the store past its lease; worker-b acquires and finishes.',
  },
  {
    id: 'worker-crashes',
    label: 'Worker crashes',
    description:
      'worker-a dies mid-answer; the page shows it stalled once its lease expires; worker-b’s recovery loop finishes the answer.',
  },
  {
    id: 'cancel-during-wait',
    label: 'Cancel during wait',
    description: 'The run is cancelled while it waits for the first token.',
  },
  {
    id: 'cancel-during-stream',
    label: 'Cancel while streaming',
    description: 'The run is cancelled in the middle of the answer.',
  },
] as const;

export type ScenarioId = (typeof SCENARIOS)[number]['id'];

export const SCENARIO_IDS = SCENARIOS.map((scenario) => scenario.id) as [
  ScenarioId,
  ...ScenarioId[],
];

/** Demo settings a visitor can change; they apply to runs and store calls made afterwards. */
export interface DemoSettings {
  /** Store latency per driver call, in ms (0: the memory store answers at once). */
  latencyMs: number;
  /** Delay between the model's tokens, in ms. */
  tokenMs: number;
}

export const DEFAULT_SETTINGS: DemoSettings = { latencyMs: 0, tokenMs: 60 };
export const LATENCY_RANGE = { min: 0, max: 500 } as const;
export const TOKEN_RANGE = { min: 5, max: 1000 } as const;
