/** The default view of `useRun`: `@runlight/client`'s, shared by every binding. */
export { type RunView, selectRunView } from '@runlight/client';
