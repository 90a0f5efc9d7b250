// Node ESM: @runlight/vue imports without a DOM and renders on the server (vue/server-renderer)
// with the snapshot the server loaded once, and no event stream.
import { createRunlightClient } from '@runlight/client';
import * as vue from '@runlight/vue';
import { createSSRApp, h, onServerPrefetch } from 'vue';
import { renderToString } from 'vue/server-renderer';

for (const name of [
  'createRunlight',
  'RunStatus',
  'useRunStatus',
  'useRunControls',
  'useRunTimeline',
]) {
  if (!(name in vue)) throw new Error(`@runlight/vue does not export ${name}`);
}
const requests = [];
const run = {
  id: 'run-1',
  status: 'running',
  owner: 'w',
  fencingToken: 1,
  revision: 2,
  failure: null,
  leaseExpiresAt: null,
  createdAt: '2026-12-02T10:00:00.000Z',
  updatedAt: '2026-12-02T10:00:01.000Z',
  lastOperation: {
    id: 'req-step-0',
    kind: 'model-request',
    phase: 'started',
    step: 0,
    startedAt: '2026-12-02T10:00:01.000Z',
  },
};
const client = createRunlightClient({
  baseUrl: 'http://runlight.test/api',
  fetch: async (input) => {
    requests.push(String(input));
    return Response.json({ run, assistant: null, revision: 2 });
  },
});
const runlight = vue.createRunlight({ client });
const Page = {
  setup() {
    onServerPrefetch(() => runlight.prefetch('run-1'));
    return () => h(vue.RunStatus, { runId: 'run-1' });
  },
};
const html = await renderToString(createSSRApp(Page).use(runlight));
if (!html.includes('role="status"') || !html.includes('Waiting for the model')) {
  throw new Error(`the server render has no status: ${html}`);
}
if (requests.length !== 1 || requests[0].endsWith('/events')) {
  throw new Error(`the server render asked ${JSON.stringify(requests)}`);
}
if (!JSON.stringify(runlight.dehydrate()).includes('"run-1"'))
  throw new Error('nothing to hand over');
console.log('  node ESM: imports, renders on the server with one snapshot load');
