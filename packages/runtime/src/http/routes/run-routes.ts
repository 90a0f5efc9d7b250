import type { RunAction } from '../access/authorize';

/** The name of a route the run router serves. */
export type RunRouteName =
  | 'start'
  | 'snapshots'
  | 'snapshot'
  | 'events'
  | 'event'
  | 'history'
  | 'cancel'
  | 'approve'
  | 'multiplexed-events';

/** One route of the run router: where it is, its method, and what `authorize` is asked. */
export interface RunRoute {
  name: RunRouteName;
  method: 'GET' | 'POST';
  /**
   * Under `basePath`; `:id` is one path segment, the run id (percent-decoded, validated);
   * `:revision` one segment of decimal digits (an event's revision).
   */
  path: string;
  /** The `action` the access policy is asked (per run named, for the routes of many runs). */
  action: RunAction;
  /** Served only with the router's `multiplex` handlers. */
  multiplex: boolean;
}

/**
 * Every route the run router can serve — the router dispatches through this table only, so a
 * route added here is one the access test (`route-access.test.ts`) enumerates.
 */
export const RUN_ROUTES: readonly RunRoute[] = [
  { name: 'start', method: 'POST', path: '/runs', action: 'start', multiplex: false },
  { name: 'snapshots', method: 'GET', path: '/runs', action: 'read', multiplex: true },
  { name: 'snapshot', method: 'GET', path: '/runs/:id', action: 'read', multiplex: false },
  { name: 'events', method: 'GET', path: '/runs/:id/events', action: 'read', multiplex: false },
  {
    name: 'event',
    method: 'GET',
    path: '/runs/:id/events/:revision',
    action: 'read',
    multiplex: false,
  },
  {
    name: 'history',
    method: 'GET',
    path: '/runs/:id/operations',
    action: 'history',
    multiplex: false,
  },
  { name: 'cancel', method: 'POST', path: '/runs/:id/cancel', action: 'cancel', multiplex: false },
  {
    name: 'approve',
    method: 'POST',
    path: '/runs/:id/approvals',
    action: 'approve',
    multiplex: false,
  },
  {
    name: 'multiplexed-events',
    method: 'GET',
    path: '/run-events',
    action: 'read',
    multiplex: true,
  },
];

/** A route whose path matched, with the raw (still encoded) run id segment, if it has one. */
export interface RunRouteMatch {
  route: RunRoute;
  encodedId: string | null;
  /** The `:revision` segment (digits), if the route has one. */
  revision: string | null;
}

/**
 * The routes of `routes` whose path matches `path` (the raw path under `basePath`, already
 * checked by `pathProblem`), any method. An `:id` segment matches one non-empty segment, a
 * `:revision` one of digits only.
 */
export function matchRunRoute(routes: readonly RunRoute[], path: string): RunRouteMatch[] {
  const segments = path.split('/');
  const matches: RunRouteMatch[] = [];
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    let encodedId: string | null = null;
    let revision: string | null = null;
    const same = pattern.every((part, index) => {
      const segment = segments[index]!;
      if (part === ':revision') {
        revision = segment;
        return /^[0-9]+$/.test(segment);
      }
      if (part !== ':id') return part === segment;
      encodedId = segment;
      return segment !== '';
    });
    if (same) matches.push({ route, encodedId, revision });
  }
  return matches;
}
