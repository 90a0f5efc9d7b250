import type { AgentRun, RunEvent, RunHandOff, RunSnapshot } from '@runlight/protocol';

/**
 * The public form of what the HTTP handlers send (unless `exposeInternals: true`): no `owner`
 * (`runtime-<HOSTNAME>-<pid>-…`) and no `fencingToken`. `owner` becomes an opaque holder tag —
 * `null` when nobody holds the run, else a random id standing for one acquisition (one owner
 * and fencing token) in this server process. A browser can still say "a worker holds this run"
 * (with `leaseExpiresAt`: "it stopped responding") and tell that the holder changed; it learns
 * no host name, process id or acquisition count. Another process names the same acquisition
 * differently: a client only compares tags for equality, and a different tag only makes it
 * drop its unconfirmed live text (the next write or the buffered deltas bring it back).
 *
 * A previous owner's late deltas are dropped by the event stream before it strips (it tracks
 * the newest acquisition of each run: `RunEventStream`), so the browser needs no token.
 */

/** The most acquisitions named at once; the oldest names are forgotten first. */
const MAX_TAGS = 10_000;
const tags = new Map<string, string>();

/** The opaque, per-process name of the acquisition `token` of `owner`. */
export function holderTag(owner: string | null, token: number): string | null {
  if (owner === null) return null;
  const key = `${token}\u0000${owner}`;
  let tag = tags.get(key);
  if (tag === undefined) {
    tag = `holder-${crypto.randomUUID()}`;
    if (tags.size >= MAX_TAGS) tags.delete(tags.keys().next().value as string);
    tags.set(key, tag);
  }
  return tag;
}

/**
 * A planned hand-off with its owners as the holder tags a browser saw them under: the receiver
 * is the current acquisition (`token`), the one that handed over the acquisition before it —
 * a record holds a hand-off only until the acquisition after the receiving one.
 */
function publicHandOff(handOff: RunHandOff, token: number): RunHandOff {
  const fromToken = handOff.to === undefined ? token : token - 1;
  return {
    from: holderTag(handOff.from, fromToken)!,
    at: handOff.at,
    ...(handOff.to === undefined ? {} : { to: holderTag(handOff.to, token)! }),
  };
}

/** `run` without `fencingToken`, its owner as a holder tag. */
export function publicRun(run: AgentRun): Omit<AgentRun, 'fencingToken'> {
  const { fencingToken, owner, handOff, ...rest } = run;
  return {
    ...rest,
    owner: holderTag(owner, fencingToken),
    ...(handOff === undefined ? {} : { handOff: publicHandOff(handOff, fencingToken) }),
  };
}

/** `snapshot` in its public form (see the module note); other fields unchanged. */
export function publicSnapshot<T extends RunSnapshot>(
  snapshot: T,
): Omit<T, 'run'> & {
  run: Omit<AgentRun, 'fencingToken'>;
} {
  return { ...snapshot, run: publicRun(snapshot.run) };
}

/** One public object per event, so that its serialisation is cached once (sse-output.ts). */
const publicEvents = new WeakMap<RunEvent, RunEvent>();

/**
 * `event` in its public form: a `run-status` event's owner as a holder tag and no
 * `fencingToken`, a delta without `fencingToken`; other events unchanged (the same object).
 * Typed as `RunEvent` for the SSE writer, which only serialises it.
 */
export function publicEvent<E extends RunEvent>(event: E): E {
  if (event.type !== 'run-status' && !(event.type === 'run-delta' && 'fencingToken' in event)) {
    return event;
  }
  let stripped = publicEvents.get(event);
  if (stripped === undefined) {
    if (event.type === 'run-status') {
      const { fencingToken, owner, handOff, ...rest } = event;
      stripped = {
        ...rest,
        owner: holderTag(owner, fencingToken),
        ...(handOff === undefined ? {} : { handOff: publicHandOff(handOff, fencingToken) }),
      } as unknown as RunEvent;
    } else {
      const { fencingToken: _token, ...rest } = event as Extract<RunEvent, { type: 'run-delta' }>;
      stripped = rest as RunEvent;
    }
    publicEvents.set(event, stripped);
  }
  return stripped as E;
}
