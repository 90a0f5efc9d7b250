/**
 * The default look of the status components, keyed on their data attributes. The components
 * insert it themselves (React 19 deduplicates the `<style>` by its `href`) unless `unstyled`;
 * an app that styles its own can start from this string or ignore it. No CSS framework.
 */
export const runlightCss = `[data-runlight='status']{display:inline-flex;align-items:center;gap:.5em;font-variant-numeric:tabular-nums}
[data-runlight='status'] [data-runlight-part='detail'],[data-runlight='status'] [data-runlight-part='elapsed']{opacity:.75}
[data-runlight='indicator']{display:inline-block;box-sizing:border-box;flex:none;width:.6em;height:.6em;border-radius:50%;background:currentColor;vertical-align:middle}
[data-runlight='indicator'][data-busy]{width:.8em;height:.8em;background:transparent;border:2px solid currentColor;border-right-color:transparent;animation:runlight-spin .8s linear infinite}
[data-runlight='indicator'][data-activity='completed']{color:#15803d}
[data-runlight='indicator'][data-activity='failed']{color:#b91c1c}
[data-runlight='indicator'][data-activity='awaiting-approval'],[data-runlight='indicator'][data-activity='stalled']{color:#b45309}
[data-runlight='indicator'][data-activity='queued'],[data-runlight='indicator'][data-activity='cancelled']{color:#6b7280}
@keyframes runlight-spin{to{transform:rotate(1turn)}}
@media (prefers-reduced-motion:reduce){[data-runlight='indicator'][data-busy]{animation:none;border-right-color:currentColor;opacity:.6}}`;
