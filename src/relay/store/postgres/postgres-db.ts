import { Pool } from "pg";
import { runMigrations } from "./postgres-migrations";
import { partError } from "../store-down";

/*
 * The Postgres connection of the ledger and its namespace's schema: migrations run before the
 * first query (and again if the schema disappears, a wiped or replaced database), and every
 * failure becomes the store's "unavailable" error, so the gateway answers 503 and sends nothing.
 */

/** SQLSTATEs meaning the tables are gone (a wiped or replaced database): migrate again. */
const MISSING_RELATION = new Set(["42P01", "3F000"]);

/** The pool and one namespace's schema, migrated before it is queried. */
export class PostgresDb {
  readonly #pool: Pool;
  readonly #schema: string;
  /** The schema as an identifier, to write into statements before its tables' names. */
  readonly s: string;
  #migrated: Promise<void> | undefined;

  /** `schema` is the namespace, checked to be [a-z_][a-z0-9_]* (config.ts) and again here. */
  constructor(pool: Pool, schema: string) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new RangeError(`Expected schema to be lowercase letters, digits and _, got ${JSON.stringify(schema)}`);
    this.#pool = pool;
    this.#schema = schema;
    this.s = `"${schema}"`;
  }

  /** Runs the migrations now; a failure is kept for the next call to retry. */
  ready(): Promise<void> {
    this.#migrated ??= this.#migrate().catch((error: unknown) => {
      this.#migrated = undefined;
      throw partError("Postgres", error);
    });
    return this.#migrated;
  }

  async query<R extends object>(text: string, values: unknown[] = []): Promise<{ rows: R[]; rowCount: number | null }> {
    await this.ready();
    try {
      return await this.#pool.query<R & Record<string, unknown>>(text, values);
    } catch (error) {
      this.#forgetMigrationsIfGone(error);
      throw partError("Postgres", error);
    }
  }

  async ping(): Promise<void> {
    await this.ready();
    try {
      await this.#pool.query("SELECT 1");
    } catch (error) {
      throw partError("Postgres", error);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  #forgetMigrationsIfGone(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && MISSING_RELATION.has(code)) this.#migrated = undefined;
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await runMigrations(client, this.#schema, this.s);
      client.release();
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release(true);
      throw error;
    }
  }
}
