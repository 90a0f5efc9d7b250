import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';

/** Where the playground's "Real model" scenario finds its provider, from the environment. */
export interface RealModelConfig {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
  /** Shown in the scenario's notes (never the key). */
  label: string;
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The real provider of the environment, or `null` with no `OPENAI_API_KEY` and no
 * `RUNLIGHT_OPENAI_BASE_URL`. `RUNLIGHT_OPENAI_BASE_URL` points at any OpenAI-compatible
 * server (a local Ollama is `http://127.0.0.1:11434/v1`, vLLM `http://127.0.0.1:8000/v1`);
 * `RUNLIGHT_OPENAI_MODEL` names the model (default `gpt-4o-mini`).
 */
export function realModelConfig(
  env: Record<string, string | undefined> = process.env,
): RealModelConfig | null {
  const apiKey = env.OPENAI_API_KEY || undefined;
  const custom = env.RUNLIGHT_OPENAI_BASE_URL || undefined;
  if (apiKey === undefined && custom === undefined) return null;
  const baseURL = custom ?? OPENAI_BASE_URL;
  const model = env.RUNLIGHT_OPENAI_MODEL || 'gpt-4o-mini';
  return { baseURL, apiKey, model, label: `${model} at ${new URL(baseURL).host}` };
}

/** The scenario's model through `@ai-sdk/openai-compatible`. */
export function realModel(config: RealModelConfig): LanguageModel {
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: config.baseURL,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    includeUsage: true,
  });
  return provider.chatModel(config.model);
}

/** What the scenario says when no real provider is configured. */
export const REAL_MODEL_HOW_TO =
  'No real provider is configured. Set OPENAI_API_KEY (OpenAI), or RUNLIGHT_OPENAI_BASE_URL for any ' +
  'OpenAI-compatible server (e.g. http://127.0.0.1:11434/v1 for Ollama) with RUNLIGHT_OPENAI_MODEL, ' +
  'and restart `pnpm demo`.';
