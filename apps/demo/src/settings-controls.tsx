import { useEffect, useState } from 'react';
import { demoApi } from './demo-api-client';
import {
  DEFAULT_SETTINGS,
  type DemoSettings,
  LATENCY_RANGE,
  TOKEN_RANGE,
} from './scenario-catalog';

/** Store latency (later ticks) and the model's token rate, applied by the server. */
export function SettingsControls() {
  const [settings, setSettings] = useState<DemoSettings>(DEFAULT_SETTINGS);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    demoApi.settings().then(setSettings, () => {});
  }, []);
  const update = (patch: Partial<DemoSettings>) => {
    setSettings((current) => ({ ...current, ...patch }));
    demoApi.updateSettings(patch).then(
      (saved) => {
        setSettings(saved);
        setError(null);
      },
      (cause: unknown) => setError(cause instanceof Error ? cause.message : String(cause)),
    );
  };
  return (
    <section className="card">
      <h2>Settings</h2>
      <label className="slider">
        <span>
          Store latency <strong data-testid="latency-value">{settings.latencyMs} ms</strong>
        </span>
        <input
          type="range"
          data-testid="latency"
          min={LATENCY_RANGE.min}
          max={LATENCY_RANGE.max}
          step={10}
          value={settings.latencyMs}
          onChange={(event) => update({ latencyMs: Number(event.target.value) })}
        />
        <span className="hint">Every store call answers on a later tick.</span>
      </label>
      <label className="slider">
        <span>
          Token delay <strong data-testid="token-value">{settings.tokenMs} ms</strong>
        </span>
        <input
          type="range"
          data-testid="token-rate"
          min={TOKEN_RANGE.min}
          max={TOKEN_RANGE.max}
          step={5}
          value={settings.tokenMs}
          onChange={(event) => update({ tokenMs: Number(event.target.value) })}
        />
        <span className="hint">Applies to runs started afterwards.</span>
      </label>
      {error && <p className="error">{error}</p>}
    </section>
  );
}
