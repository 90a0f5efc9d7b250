import { RunlightProvider } from '@runlight/react';
import { useId, useRef, useState } from 'react';
import type { RunlightDevtoolsProps } from './devtools-props';
import { DevtoolsWindow } from './devtools-window';
import { ShadowHost } from './shadow-host';
import { useDevtoolsClient } from './use-devtools-client';

/**
 * The devtools themselves (the lazily loaded chunk): a button, and the panel it opens. Escape
 * closes the panel and gives focus back to the button.
 */
export function RunlightDevtoolsPanel({
  client: own,
  initialIsOpen = false,
  position = 'bottom-right',
  theme = 'system',
  recovers,
}: RunlightDevtoolsProps) {
  const { client, inspection, provider } = useDevtoolsClient(own);
  const [open, setOpen] = useState(initialIsOpen);
  const toggle = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  if (client === null || inspection === null) return null;
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const panel = (
    <DevtoolsWindow
      id={panelId}
      inspection={inspection}
      position={position}
      recovers={recovers ?? provider?.recovers ?? false}
      onClose={close}
    />
  );
  return (
    <ShadowHost theme={theme === 'system' ? 'system' : theme}>
      <button
        ref={toggle}
        type="button"
        className="rl-toggle"
        data-position={position}
        data-testid="runlight-devtools-toggle"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => (open ? close() : setOpen(true))}
      >
        <span className="rl-dot" aria-hidden="true" />
        Runlight devtools
      </button>
      {open ? (
        provider === null ? (
          // The waterfall reads through a provider: one for this client, when the app's is not.
          <RunlightProvider client={client} recovers={recovers ?? false}>
            {panel}
          </RunlightProvider>
        ) : (
          panel
        )
      ) : null}
    </ShadowHost>
  );
}
