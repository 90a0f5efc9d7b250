import type { ClientInspection, RunStore } from '@runlight/client';
import { selectActivity } from '@runlight/client';
import { type KeyboardEvent, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { RunDetails } from '../run/run-details';
import { activityText } from '../run/run-facts';
import { useWatchedRun } from '../run/use-watched-run';
import type { DevtoolsPosition } from './devtools-props';

export interface DevtoolsWindowProps {
  id: string;
  inspection: ClientInspection;
  position: DevtoolsPosition;
  recovers: boolean;
  onClose: () => void;
}

/** The open panel: the client's runs on the left, the selected one on the right. */
export function DevtoolsWindow({
  id,
  inspection,
  position,
  recovers,
  onClose,
}: DevtoolsWindowProps) {
  const version = useSyncExternalStore(
    inspection.subscribe,
    inspection.getVersion,
    inspection.getVersion,
  );
  const stores = inspection.stores();
  const [selected, setSelected] = useState<string | null>(null);
  const store = stores.find((candidate) => candidate.runId === selected) ?? stores.at(-1) ?? null;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    onClose();
  };
  return (
    <section
      id={id}
      className="rl-panel"
      data-position={position}
      data-testid="runlight-devtools"
      aria-labelledby={`${id}-title`}
      onKeyDown={onKeyDown}
      data-version={version}
    >
      <header className="rl-header">
        <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
          Runlight devtools
        </h2>
        <button type="button" className="rl-button" onClick={onClose}>
          Close
        </button>
      </header>
      <div className="rl-body">
        <nav className="rl-runs" aria-label="Runs of this client">
          <h3>Runs ({stores.length})</h3>
          <ul>
            {stores.map((candidate) => (
              <li key={candidate.runId}>
                <RunButton
                  store={candidate}
                  current={candidate === store}
                  recovers={recovers}
                  onSelect={() => setSelected(candidate.runId)}
                />
              </li>
            ))}
          </ul>
        </nav>
        <div className="rl-details">
          {store === null ? (
            <p className="rl-empty">This client holds no run yet.</p>
          ) : (
            <RunDetails
              key={store.runId}
              store={store}
              inspection={inspection}
              recovers={recovers}
            />
          )}
        </div>
      </div>
    </section>
  );
}

function RunButton({
  store,
  current,
  recovers,
  onSelect,
}: {
  store: RunStore;
  current: boolean;
  recovers: boolean;
  onSelect: () => void;
}) {
  const state = useWatchedRun(store);
  const label = activityText(selectActivity(state), recovers);
  return (
    <button
      type="button"
      className="rl-run"
      aria-current={current}
      data-testid="runlight-devtools-run"
      data-run-id={store.runId}
      onClick={onSelect}
    >
      <span>{store.runId}</span>
      {label}
    </button>
  );
}
