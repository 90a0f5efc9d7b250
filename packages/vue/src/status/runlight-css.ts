/** The status components' default look: `@runlight/client`'s, shared by every binding. */
export { runlightStatusCss } from '@runlight/client';
