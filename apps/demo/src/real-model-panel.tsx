import { useEffect, useState } from 'react';

type RealModelInfo = { configured: true; label: string } | { configured: false; howTo: string };

/**
 * The "Real model" scenario: a run through `@ai-sdk/openai-compatible` when the server has
 * `OPENAI_API_KEY` or `RUNLIGHT_OPENAI_BASE_URL`; otherwise how to enable it.
 */
export function RealModelPanel({ onStarted }: { onStarted: () => void }) {
  const [info, setInfo] = useState<RealModelInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void fetch('/api/demo/real-model')
      .then((response) => response.json() as Promise<RealModelInfo>)
      .then(setInfo);
  }, []);
  if (info === null) return null;
  if (!info.configured) {
    return (
      <section className="card real-model" data-testid="real-model" data-configured="false">
        <h2>Real model</h2>
        <p>{info.howTo}</p>
      </section>
    );
  }
  const start = async () => {
    const response = await fetch('/api/demo/real-model', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (!response.ok) setError(`The server answered HTTP ${response.status}`);
    else onStarted();
  };
  return (
    <section className="card real-model" data-testid="real-model" data-configured="true">
      <h2>Real model</h2>
      <p>{info.label}</p>
      <button type="button" data-testid="start-real-model" onClick={start}>
        Ask the real model
      </button>
      {error === null ? null : <p role="alert">{error}</p>}
    </section>
  );
}
