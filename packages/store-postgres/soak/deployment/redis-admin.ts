import { connect } from 'node:net';

/**
 * The soak's own word with Redis (whether it answers, deleting its keys after), in RESP over a
 * socket: this package does not depend on a Redis client (the buses' processes use
 * `@runlight/bus-redis`'s).
 */
export function redisCommand(url: string, args: readonly string[], timeoutMs = 2_000) {
  const { hostname, port } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
    const timer = setTimeout(() => socket.destroy(new Error(`${url} did not answer`)), timeoutMs);
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      const encoded = args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('');
      socket.write(`*${args.length}\r\n${encoded}`);
    });
    socket.on('data', (text: string) => {
      reply += text;
      // One reply: a simple string, an error or an integer (what the soak sends answers so).
      if (!reply.endsWith('\r\n')) return;
      clearTimeout(timer);
      socket.end();
      if (reply.startsWith('-')) reject(new Error(reply.slice(1).trim()));
      else resolve(reply.slice(1).trim());
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Deletes every key under `prefix` (a Lua loop over `SCAN`); resolves how many. */
export async function dropRedisKeys(url: string, prefix: string): Promise<number> {
  const script = `local n, cursor = 0, '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do n = n + redis.call('DEL', key) end
until cursor == '0'
return n`;
  return Number(await redisCommand(url, ['EVAL', script, '0', `${prefix}*`], 10_000));
}
