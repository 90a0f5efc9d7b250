/**
 * The default `maxToolResultBytes`: 4 MiB. Half the default per-client SSE cap (8 MiB) and
 * four times the default `maxEventBytes` (1 MiB): a result this large still travels (as an
 * `event-ref` the client fetches) and is stored, while a tool returning tens of MB — which
 * held every process that touched it at gigabytes of memory — is refused before it is
 * checkpointed, published or sent to the model.
 */
export const DEFAULT_MAX_TOOL_RESULT_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();

/**
 * The UTF-8 size of `output` as JSON when it is larger than `limit`, else `null`. A string
 * longer than `limit` is over it whatever its characters (each is at least one byte); one
 * under a third of it is under (at most three bytes per UTF-16 unit); only in between are
 * the bytes counted. An output that does not serialise (a cycle, a BigInt) is left to the SDK.
 *
 * @example
 * oversizeOf({ rows }, 4 * 1024 * 1024); // null, or the byte size
 */
export function oversizeOf(output: unknown, limit: number): number | null {
  let json: string | undefined;
  try {
    json = JSON.stringify(output);
  } catch {
    return null;
  }
  if (json === undefined) return null;
  if (json.length > limit) return json.length;
  if (json.length * 3 <= limit) return null;
  const bytes = encoder.encode(json).byteLength;
  return bytes > limit ? bytes : null;
}

/** `value` when it is a positive number, else a `TypeError` naming the option. */
export function positiveLimit(name: string, value: number): number {
  if (!(typeof value === 'number' && value > 0)) {
    throw new TypeError(`${name} must be a positive number of bytes, not ${String(value)}`);
  }
  return value;
}
