import type Database from "better-sqlite3";
import { AnalysisDbRow, storedAnalysisOf } from "../analysis-rows";
import { AnalysisStore, StoredAnalysis } from "../store";

/* The SQLite store's analyses by id (analyses_v1). */

export class SqliteAnalyses implements AnalysisStore {
  readonly #get;
  readonly #put;

  constructor(db: Database.Database) {
    this.#get = db.prepare<[string], AnalysisDbRow>("SELECT * FROM analyses_v1 WHERE id = ?");
    this.#put = db.prepare(
      "INSERT INTO analyses_v1 (id, op, strategy, data, warnings, updated_at) VALUES (@id, @op, @strategy, @data, @warnings, @updated_at) " +
        "ON CONFLICT (id) DO UPDATE SET op = excluded.op, strategy = COALESCE(analyses_v1.strategy, excluded.strategy), data = excluded.data, warnings = excluded.warnings, updated_at = excluded.updated_at",
    );
  }

  async get(id: string): Promise<StoredAnalysis | undefined> {
    const row = this.#get.get(id);
    if (!row) return undefined;
    return storedAnalysisOf(row);
  }

  async put(a: StoredAnalysis): Promise<void> {
    this.#put.run({
      id: a.id,
      op: a.op,
      strategy: a.strategy ?? null,
      data: JSON.stringify(a.data),
      warnings: JSON.stringify(a.warnings),
      updated_at: a.updatedAt,
    });
  }
}
