import type { PGliteInterface } from '@electric-sql/pglite';
import type { Pool, PoolClient } from 'pg';

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
   * Listens on `channel`; resolves once LISTEN is active, to the function that stops it.
   * A pool dedicates one connection to it; `onError` hears when that connection breaks.
   */
  listen(
    channel: string,
    onNotification: (payload: string) => void,
    onError: (error: unknown) => void,
  ): Promise<() => Promise<void>>;
}

/** A node-postgres `Pool` or a PGlite instance (`PGlite`, `PGliteWorker`). */
export type PostgresClient = Pool | PGliteInterface;

function isPglite(client: PostgresClient): client is PGliteInterface {
  // Duck-typed rather than `instanceof`, so two copies of either package both work.
  return typeof (client as PGliteInterface).exec === 'function' && 'closed' in client;
}

function fromPglite(db: PGliteInterface): SqlClient {
  const queryOn =
    (target: Pick<PGliteInterface, 'query'>) =>
    async <Row extends object>({ text, values }: SqlStatement) =>
      (await target.query<Row>(text, values ? [...values] : undefined)).rows;
  return {
    query: queryOn(db),
    transaction: (work) => db.transaction((tx) => work({ query: queryOn(tx) })),
    async listen(channel, onNotification) {
      const stop = await db.listen(channel, onNotification);
      return async () => {
        if (!db.closed) await stop();
      };
    },
  };
}

function fromPool(pool: Pool): SqlClient {
  const queryOn =
    (target: Pool | PoolClient) =>
    async <Row extends object>({ name, text, values }: SqlStatement) =>
      (await target.query<Row>({ name, text, values: values ? [...values] : undefined })).rows;
  return {
    query: queryOn(pool),
    async transaction(work) {
      const connection = await pool.connect();
      try {
        await connection.query('BEGIN');
        const result = await work({ query: queryOn(connection) });
        await connection.query('COMMIT');
        connection.release();
        return result;
      } catch (error) {
        // A connection whose ROLLBACK fails is broken: destroy it instead of pooling it.
        await connection.query('ROLLBACK').then(
          () => connection.release(),
          (rollbackError: Error) => connection.release(rollbackError),
        );
        throw error;
      }
    },
    async listen(channel, onNotification, onError) {
      const connection = await pool.connect();
      const handle = (message: { channel: string; payload?: string }) => {
        if (message.channel === channel) onNotification(message.payload ?? '');
      };
      let broken: Error | undefined;
      const fail = (error: Error) => {
        broken = error;
        onError(error);
      };
      connection.on('notification', handle);
      connection.on('error', fail);
      try {
        await connection.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        connection.release(error as Error);
        throw error;
      }
      return async () => {
        connection.off('notification', handle);
        try {
          if (!broken) await connection.query(`UNLISTEN ${quoteIdentifier(channel)}`);
        } finally {
          connection.off('error', fail);
          connection.release(broken);
        }
      };
    },
  };
}

/**
 * Wraps a node-postgres `Pool` or a PGlite instance in the driver's query adapter.
 *
 * @example
 * const sql = toSqlClient(new pg.Pool({ connectionString }));
 * const rows = await sql.query<{ one: number }>({ text: 'SELECT 1 AS one' });
 */
export function toSqlClient(client: PostgresClient): SqlClient {
  return isPglite(client) ? fromPglite(client) : fromPool(client);
}

/** Quotes an SQL identifier (schema, table or channel name). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
