import type { ClientInspection, RunStore } from '@runlight/client';
import { useState } from 'react';
import { runAsJson } from './run-as-json';

/** Copies the run's public form (`runAsJson`) to the clipboard, and says how it went. */
export function CopyRunButton({
  store,
  inspection,
}: {
  store: RunStore;
  inspection: ClientInspection;
}) {
  const [status, setStatus] = useState('');
  const copy = async () => {
    const json = runAsJson(store, inspection.controlRequests());
    try {
      await navigator.clipboard.writeText(json);
      setStatus(`Copied ${json.length.toLocaleString('en')} characters.`);
    } catch {
      setStatus('The clipboard refused: allow clipboard access and try again.');
    }
  };
  return (
    <>
      <button
        type="button"
        className="rl-button"
        data-testid="runlight-devtools-copy"
        onClick={copy}
      >
        Copy run as JSON
      </button>{' '}
      <span role="status">{status}</span>
    </>
  );
}
