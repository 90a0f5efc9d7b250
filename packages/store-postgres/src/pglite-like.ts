/**
 * What the driver and the bus use of a PGlite instance (`@electric-sql/pglite`'s
 * `PGliteInterface`), written structurally: PGlite is an optional peer — a production install
 * has none — so the published types must not import it. A `PGlite` is assignable to it.
 */
export interface PgliteQueryable {
  query<Row>(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

/** A PGlite instance as the store and the bus use it. */
export interface PgliteLike extends PgliteQueryable {
  readonly closed: boolean;
  exec(sql: string): Promise<unknown>;
  transaction<T>(work: (transaction: PgliteQueryable) => Promise<T>): Promise<T>;
  listen(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>>;
}
