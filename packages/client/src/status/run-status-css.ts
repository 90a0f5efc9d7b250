/**
 * The default look of the status components (`RunStatus`, `OperationIndicator`), keyed on their
 * data attributes. One string for
 * every binding (React, Vue, Svelte), so they look alike too; each binding's components insert
 * it themselves unless `unstyled`. An app that styles its own can start from this string or
 * ignore it. No CSS framework.
 *
 * Text is never dimmed: every label, detail, elapsed time and timeline cell is drawn in the
 * app's own text colour (WCAG AA wherever the app's text is), and a muted colour is the app's
 * choice (`--runlight-muted-foreground`). The indicator colours follow `color-scheme` with
 * `light-dark()` (3:1 or more against white and against #0a0a0a). Animations stop under
 * `prefers-reduced-motion: reduce`.
 */
export const runlightStatusCss = `[data-runlight='status']{display:inline-flex;align-items:center;gap:.5em;font-variant-numeric:tabular-nums}
[data-runlight='status'] [data-runlight-part='label']{font-weight:500}
[data-runlight='status'] [data-runlight-part='detail'],[data-runlight='status'] [data-runlight-part='elapsed']{color:var(--runlight-muted-foreground,inherit)}
[data-runlight='indicator']{display:inline-block;box-sizing:border-box;flex:none;width:.6em;height:.6em;border-radius:50%;background:currentColor;vertical-align:middle}
[data-runlight='indicator'][data-busy]{width:.8em;height:.8em;background:transparent;border:2px solid currentColor;border-right-color:transparent;animation:runlight-spin .8s linear infinite}
[data-runlight='indicator'][data-activity='completed']{color:light-dark(#15803d,#4ade80)}
[data-runlight='indicator'][data-activity='failed']{color:light-dark(#b91c1c,#f87171)}
[data-runlight='indicator'][data-activity='awaiting-approval'],[data-runlight='indicator'][data-activity='stalled']{color:light-dark(#b45309,#fbbf24)}
[data-runlight='status'][data-connection='unreachable'] [data-runlight='indicator']{color:light-dark(#b45309,#fbbf24)}
[data-runlight='indicator'][data-activity='queued'],[data-runlight='indicator'][data-activity='cancelled']{color:light-dark(#6b7280,#9ca3af)}
@keyframes runlight-spin{to{transform:rotate(1turn)}}
@media (prefers-reduced-motion:reduce){[data-runlight='indicator'][data-busy]{animation:none;border-right-color:currentColor;opacity:.6}}`;
