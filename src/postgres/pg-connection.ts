/**
 * What the Postgres store needs of a connection, typed by shape so that `pg` stays an optional
 * peer and other clients fit: a `pg.Pool`, a `pg.Client`, or PGlite (Postgres compiled to WASM).
 */

/** Anything that runs a parameterised query: `pg.Client`, `pg.PoolClient`, PGlite. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
}

/** A pool of connections (`pg.Pool`): transactions take a client of their own and give it back. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgQueryable & { release(error?: Error | boolean): void }>
}

/** How the store reaches the database: reads, and writes that run in one transaction. */
export interface Connection {
  query<Row>(text: string, values?: unknown[]): Promise<Row[]>
  /** Runs `work` between BEGIN and COMMIT on one connection (ROLLBACK when it throws). */
  transaction<T>(work: (query: Connection['query']) => Promise<T>): Promise<T>
}

/**
 * A pool gives each transaction its own client. A lone client (or PGlite, one connection) is
 * shared, so every call on it runs one at a time: another call's query must never land inside
 * a transaction that is not its own.
 */
export function connectionOf(source: { pool: PgPool } | { client: PgQueryable }): Connection {
  if ('pool' in source) {
    const { pool } = source
    return {
      query: async <Row>(text: string, values?: unknown[]) => (await pool.query(text, values)).rows as Row[],
      async transaction(work) {
        const client = await pool.connect()
        try {
          const result = await inTransaction(client, work)
          client.release()
          return result
        } catch (error) {
          // A client whose ROLLBACK failed may be broken: the pool discards it instead of reusing it.
          client.release(error instanceof Error ? error : true)
          throw error
        }
      },
    }
  }
  const { client } = source
  let queue: Promise<unknown> = Promise.resolve()
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task)
    queue = next.catch(() => undefined)
    return next
  }
  return {
    query: <Row>(text: string, values?: unknown[]) => serially(async () => (await client.query(text, values)).rows as Row[]),
    transaction: (work) => serially(() => inTransaction(client, work)),
  }
}

async function inTransaction<T>(client: PgQueryable, work: (query: Connection['query']) => Promise<T>): Promise<T> {
  await client.query('BEGIN')
  try {
    const result = await work(async <Row>(text: string, values?: unknown[]) => (await client.query(text, values)).rows as Row[])
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK')
    throw error
  }
}
