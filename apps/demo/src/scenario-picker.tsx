import { useState } from 'react';
import { demoApi } from './demo-api-client';
import { SCENARIOS } from './scenario-catalog';

/** One button per scenario; a click starts a new run and opens it. */
export function ScenarioPicker({ onStarted }: { onStarted: (runId: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section className="card">
      <h2>Scenarios</h2>
      <ul className="scenario-list">
        {SCENARIOS.map((scenario) => (
          <li key={scenario.id}>
            <button
              type="button"
              data-testid={`scenario-${scenario.id}`}
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                setError(null);
                try {
                  onStarted((await demoApi.startScenario(scenario.id)).runId);
                } catch (cause) {
                  setError(cause instanceof Error ? cause.message : String(cause));
                } finally {
                  setBusy(false);
                }
              }}
            >
              {scenario.label}
            </button>
            <span className="hint">{scenario.description}</span>
          </li>
        ))}
      </ul>
      {error && <p className="error">{error}</p>}
    </section>
  );
}
