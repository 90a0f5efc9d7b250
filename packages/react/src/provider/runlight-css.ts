import { runlightStatusCss } from '@runlight/client';

/** The status components' default look: `@runlight/client`'s, shared by every binding. */
export { runlightStatusCss };

/**
 * The default look of `RunTimeline`, inserted by the timeline only: a page that renders just a
 * status carries none of it. The headings and the result words wrap (the durations do not), so
 * the table fits its column and the bar column keeps its share: a table wider than its box
 * would scroll the waterfall's later bars out of view. A bar is placed on the column's width
 * less its 2 px minimum, so the last one still ends inside the column.
 */
export const runlightTimelineCss = `[data-runlight='timeline'] [data-runlight-part='scroller']{max-height:var(--rl-max-height,28em);overflow:auto}
[data-runlight='timeline'] table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:.85em}
[data-runlight='timeline'] thead :is(th,td){position:sticky;top:0;z-index:1;background:Canvas}
[data-runlight='timeline'] caption{text-align:start;font-weight:600;padding-bottom:.4em}
[data-runlight='timeline'] th,[data-runlight='timeline'] td{padding:.2em .5em;text-align:start;white-space:nowrap}
[data-runlight='timeline'] :is(thead th,tbody th,[data-runlight-part='result']){white-space:normal}
[data-runlight='timeline'] tbody tr{border-top:1px solid rgba(127,127,127,.25)}
[data-runlight='timeline'] tbody tr[data-runlight-row='spacer']{border:0}
[data-runlight='timeline'] [data-runlight-part='bar']{position:relative;width:32%;min-width:8em;height:1.1em}
[data-runlight='timeline'] [data-runlight-part='bar']>span{position:absolute;top:50%;height:.7em;margin-top:-.35em;left:calc((100% - 2px) * var(--rl-start) / var(--rl-total));width:max(2px,calc((100% - 2px) * var(--rl-length) / var(--rl-total)));border-radius:2px}
[data-runlight-part='wait']{background:repeating-linear-gradient(45deg,#f59e0b 0 3px,#fcd34d 3px 6px)}
[data-runlight-part='stream']{background:#2563eb}
[data-runlight-part='compaction']{background:repeating-linear-gradient(90deg,#7c3aed 0 4px,#c4b5fd 4px 6px)}
[data-runlight-part='gap']{background:none;border:1px dashed #9ca3af}
[data-runlight='timeline'] tr[data-phase='failed'] [data-runlight-part='bar']>span{outline:2px solid #dc2626}
[data-runlight='timeline'] tr[data-in-flight] [data-runlight-part='bar']>span:last-child{animation:runlight-pulse 1s ease-in-out infinite alternate}
@keyframes runlight-pulse{from{opacity:1}to{opacity:.55}}
@media (prefers-reduced-motion:reduce){[data-runlight='timeline'] tr[data-in-flight] [data-runlight-part='bar']>span:last-child{animation:none}}`;

/**
 * Every component's default look in one string: an app that styles its own can start from it
 * or ignore it. No CSS framework.
 */
export const runlightCss = `${runlightStatusCss}\n${runlightTimelineCss}`;
