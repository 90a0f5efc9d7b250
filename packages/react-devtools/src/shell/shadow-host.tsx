import { type ReactNode, useLayoutEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { devtoolsCss } from './devtools-css';

/**
 * Renders `children` into an open shadow root of its own, with the panel's stylesheet: the
 * app's styles neither reach the panel nor are touched by it.
 */
export function ShadowHost({ theme, children }: { theme: string; children: ReactNode }) {
  const host = useRef<HTMLDivElement>(null);
  const [root, setRoot] = useState<ShadowRoot | null>(null);
  useLayoutEffect(() => {
    const element = host.current!;
    // StrictMode runs the effect twice; a host keeps its one shadow root.
    setRoot(element.shadowRoot ?? element.attachShadow({ mode: 'open' }));
  }, []);
  return (
    <div ref={host} data-runlight-devtools="">
      {root === null
        ? null
        : createPortal(
            <div className="rl-root" data-theme={theme}>
              <style>{devtoolsCss}</style>
              {children}
            </div>,
            root,
          )}
    </div>
  );
}
