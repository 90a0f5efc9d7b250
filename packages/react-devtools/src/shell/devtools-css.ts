import { runlightCss } from '@runlight/react';

/**
 * The panel's look, inside its own shadow root: nothing here reaches the app and nothing of
 * the app's reaches the panel (`all: initial` on the root resets inherited styles). Colours
 * follow `color-scheme` with `light-dark()`, each pair 4.5:1 or more against its background.
 */
export const devtoolsCss = `:host{all:initial}
.rl-root{all:initial;color-scheme:light dark;font:13px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;color:light-dark(#111827,#f3f4f6)}
.rl-root[data-theme='light']{color-scheme:light}
.rl-root[data-theme='dark']{color-scheme:dark}
.rl-root *{box-sizing:border-box}
.rl-root :focus-visible{outline:2px solid light-dark(#1d4ed8,#93c5fd);outline-offset:2px}
.rl-toggle{position:fixed;z-index:2147483000;display:inline-flex;align-items:center;gap:6px;padding:6px 12px;border-radius:999px;border:1px solid light-dark(#9ca3af,#4b5563);background:light-dark(#ffffff,#111827);color:inherit;font:inherit;font-weight:600;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)}
.rl-toggle[data-position$='right']{right:12px}.rl-toggle[data-position$='left']{left:12px}
.rl-toggle[data-position^='bottom']{bottom:12px}.rl-toggle[data-position^='top']{top:12px}
.rl-dot{width:8px;height:8px;border-radius:50%;background:light-dark(#15803d,#4ade80)}
.rl-panel{position:fixed;z-index:2147483001;left:0;right:0;bottom:0;height:min(60vh,560px);display:flex;flex-direction:column;background:light-dark(#ffffff,#111827);border-top:1px solid light-dark(#9ca3af,#4b5563);box-shadow:0 -4px 16px rgba(0,0,0,.2)}
.rl-panel[data-position^='top']{top:0;bottom:auto;border-top:0;border-bottom:1px solid light-dark(#9ca3af,#4b5563)}
.rl-header{display:flex;align-items:center;gap:12px;padding:6px 12px;border-bottom:1px solid light-dark(#d1d5db,#374151)}
.rl-header h2{font-size:14px;margin:0;flex:1}
.rl-body{display:flex;flex:1;min-height:0}
.rl-runs{width:240px;flex:none;overflow:auto;border-right:1px solid light-dark(#d1d5db,#374151);margin:0;padding:6px;list-style:none}
.rl-runs h3{font-size:12px;margin:4px 6px 8px}
.rl-runs ul{list-style:none;margin:0;padding:0}
.rl-run{display:block;width:100%;text-align:start;padding:6px 8px;margin-bottom:2px;border-radius:6px;border:1px solid transparent;background:none;color:inherit;font:inherit;cursor:pointer}
.rl-run[aria-current='true']{background:light-dark(#dbeafe,#1e3a8a);border-color:light-dark(#1d4ed8,#93c5fd)}
.rl-run span{display:block;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.rl-details{flex:1;overflow:auto;padding:8px 12px 24px}
.rl-details section{margin-bottom:16px}
.rl-details h3{font-size:13px;margin:8px 0}
.rl-facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0}
.rl-facts dt{font-weight:600}.rl-facts dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;overflow-wrap:anywhere}
.rl-button{padding:4px 10px;border-radius:6px;border:1px solid light-dark(#6b7280,#9ca3af);background:light-dark(#f9fafb,#1f2937);color:inherit;font:inherit;cursor:pointer}
.rl-button:disabled{cursor:default;opacity:.8}
.rl-log{max-height:16em;overflow:auto;border:1px solid light-dark(#d1d5db,#374151);border-radius:6px}
.rl-log table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:12px}
.rl-log caption{text-align:start;padding:4px 8px}
.rl-log th,.rl-log td{text-align:start;padding:2px 8px;white-space:nowrap}
.rl-log thead th{position:sticky;top:0;background:light-dark(#f3f4f6,#1f2937)}
.rl-log tbody tr{border-top:1px solid light-dark(#e5e7eb,#374151)}
.rl-travel{display:flex;align-items:center;gap:8px;flex-wrap:wrap}
.rl-travel input{flex:1;min-width:12em;accent-color:light-dark(#1d4ed8,#93c5fd)}
.rl-json{max-height:18em;overflow:auto;margin:8px 0 0;padding:8px;border-radius:6px;background:light-dark(#f3f4f6,#1f2937);font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
.rl-empty{padding:12px}
${runlightCss}`;
