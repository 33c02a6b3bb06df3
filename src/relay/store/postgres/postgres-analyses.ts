import { AnalysisDbRow, storedAnalysisOf } from "../analysis-rows";
import { PostgresDb } from "./postgres-db";
import { AnalysisStore, StoredAnalysis } from "../store";

/*
 * The shared store's analyses by id, in Postgres (analyses_v1), which GET /v1/analyses/:id reads on any replica.
 * Times are epoch milliseconds (bigint), which pg returns as strings.
 */

export class PostgresAnalyses implements AnalysisStore {
  readonly #db: PostgresDb;

  constructor(db: PostgresDb) {
    this.#db = db;
  }

  async get(id: string): Promise<StoredAnalysis | undefined> {
    const { rows } = await this.#db.query<AnalysisDbRow>(`SELECT * FROM ${this.#db.s}.analyses_v1 WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    return storedAnalysisOf(row);
  }

  /** An analysis keeps the strategy it was first stored with. */
  async put(a: StoredAnalysis): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#db.s}.analyses_v1 (id, op, strategy, data, warnings, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET op = excluded.op, strategy = COALESCE(analyses_v1.strategy, excluded.strategy),
         data = excluded.data, warnings = excluded.warnings, updated_at = excluded.updated_at`,
      [a.id, a.op, a.strategy ?? null, JSON.stringify(a.data), JSON.stringify(a.warnings), a.updatedAt],
    );
  }
}
