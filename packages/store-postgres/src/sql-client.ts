import type { Pool, PoolClient } from 'pg';
import { isConnectionLost, isReadOnlyStatement } from './connection-lost';
import type { PgliteLike, PgliteQueryable } from './pglite-like';

/** One statement: `name` lets node-postgres prepare it once per connection. */
export interface SqlStatement {
  name?: string;
  text: string;
  values?: readonly unknown[];
}

/** What the driver and the bus need from a database: rows out of one statement. */
export interface SqlQueryable {
  query<Row extends object>(statement: SqlStatement): Promise<Row[]>;
}

/**
 * A tiny adapter over a node-postgres `Pool` or a PGlite instance, so the same SQL runs on a
 * server and in-process. `transaction` runs `work` on one connection between BEGIN and COMMIT
 * (ROLLBACK when it throws).
 */
export interface SqlClient extends SqlQueryable {
  transaction<T>(work: (client: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * Listens on `channel`; resolves once LISTEN is active, to its handle. A pool dedicates one
   * connection to it; `onError` hears when that connection breaks or ends.
   */
  listen(
    channel: string,
    onNotification: (payload: string) => void,
    onError: (error: unknown) => void,
  ): Promise<ListenHandle>;
}

/** One active LISTEN (see `SqlClient.listen`). */
export interface ListenHandle {
  /**
   * NOTIFY the channel through the listening connection itself (`LIVENESS_PROBE_SQL`): its
   * own notification comes back on it only if that connection still works both ways.
   */
  notify(payload: string): Promise<void>;
  /** UNLISTEN, then returns the connection to its pool. */
  stop(): Promise<void>;
  /** Gives up a broken or silent connection: the pool closes it (a pending query fails). */
  destroy(error: Error): void;
}

/**
 * The statement of the bus's liveness probe. Its text names it in `pg_stat_activity`, so an
 * operator (or a test) can tell the LISTEN connection from the pool's others.
 */
export const LIVENESS_PROBE_SQL = 'SELECT pg_notify($1, $2) AS runlight_liveness';

/** A node-postgres `Pool` or a PGlite instance (`PGlite`, `PGliteWorker`). */
export type PostgresClient = Pool | PgliteLike;

function isPglite(client: PostgresClient): client is PgliteLike {
  // Duck-typed rather than `instanceof`, so two copies of either package both work.
  return typeof (client as PgliteLike).exec === 'function' && 'closed' in client;
}

function fromPglite(db: PgliteLike): SqlClient {
  const queryOn =
    (target: PgliteQueryable) =>
    async <Row extends object>({ text, values }: SqlStatement) =>
      (await target.query<Row>(text, values ? [...values] : undefined)).rows;
  return {
    query: queryOn(db),
    transaction: (work) => db.transaction((tx) => work({ query: queryOn(tx) })),
    async listen(channel, onNotification) {
      const unlisten = await db.listen(channel, onNotification);
      const stop = async () => {
        if (!db.closed) await unlisten();
      };
      return {
        async notify(payload) {
          await db.query(LIVENESS_PROBE_SQL, [channel, payload]);
        },
        stop,
        destroy: () => {
          stop().catch(() => {});
        },
      };
    },
  };
}

function fromPool(pool: Pool): SqlClient {
  const queryOn =
    (target: Pool | PoolClient) =>
    async <Row extends object>({ name, text, values }: SqlStatement) =>
      (await target.query<Row>({ name, text, values: values ? [...values] : undefined })).rows;
  const onPool = queryOn(pool);
  return {
    /**
     * A read whose connection was lost under it (an idle pooled connection the server ended,
     * a backend terminated mid-statement) runs once more, on another connection: a gateway's
     * snapshot read or an approval's check then answers instead of failing the request for a
     * connection the pool replaces anyway. Writes are never repeated (their first run may have
     * committed).
     */
    async query<Row extends object>(statement: SqlStatement) {
      try {
        return await onPool<Row>(statement);
      } catch (error) {
        if (!isConnectionLost(error) || !isReadOnlyStatement(statement.text)) throw error;
        return onPool<Row>(statement);
      }
    },
    async transaction(work) {
      const connection = await pool.connect();
      // Checked out, a connection has no pool listener: a backend that dies between two
      // statements would emit an unhandled 'error'. The next statement fails instead.
      let broken: Error | undefined;
      const onBroken = (error: Error) => {
        broken ??= error;
      };
      connection.on('error', onBroken);
      const release = (error?: Error) => {
        connection.off('error', onBroken);
        connection.release(error ?? broken);
      };
      try {
        await connection.query('BEGIN');
        const result = await work({ query: queryOn(connection) });
        await connection.query('COMMIT');
        release();
        return result;
      } catch (error) {
        // A connection whose ROLLBACK fails is broken: destroy it instead of pooling it.
        await connection.query('ROLLBACK').then(
          () => release(),
          (rollbackError: Error) => release(rollbackError),
        );
        throw error;
      }
    },
    async listen(channel, onNotification, onError) {
      const connection = await pool.connect();
      const notified = (message: { channel: string; payload?: string }) => {
        if (message.channel === channel) onNotification(message.payload ?? '');
      };
      let broken: Error | undefined;
      let released = false;
      const fail = (error: Error) => {
        if (broken || released) return;
        broken = error;
        onError(error);
      };
      const ended = () => fail(new Error('The LISTEN connection ended'));
      connection.on('notification', notified);
      connection.on('error', fail);
      connection.on('end', ended);
      const release = (error: Error | undefined) => {
        if (released) return;
        released = true;
        connection.off('notification', notified);
        connection.off('end', ended);
        connection.off('error', fail);
        // A client given up may still report its socket's end: that must not be unhandled.
        if (error) connection.on('error', () => {});
        connection.release(error);
      };
      try {
        await connection.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        release(error as Error);
        throw error;
      }
      return {
        async notify(payload) {
          await connection.query({ text: LIVENESS_PROBE_SQL, values: [channel, payload] });
        },
        async stop() {
          if (released) return;
          try {
            if (!broken) await connection.query(`UNLISTEN ${quoteIdentifier(channel)}`);
          } catch (error) {
            broken ??= error as Error;
          }
          release(broken);
        },
        destroy(error) {
          broken ??= error;
          release(broken);
        },
      };
    },
  };
}

/**
 * Wraps a node-postgres `Pool` or a PGlite instance in the driver's query adapter.
 *
 * @example
 * const pool = new pg.Pool({ connectionString });
 * pool.on('error', onError); // your pool: an idle connection the server closes is an 'error'
 * const sql = toSqlClient(pool);
 * const rows = await sql.query<{ one: number }>({ text: 'SELECT 1 AS one' });
 */
export function toSqlClient(client: PostgresClient): SqlClient {
  return isPglite(client) ? fromPglite(client) : fromPool(client);
}

/** Quotes an SQL identifier (schema, table or channel name). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
