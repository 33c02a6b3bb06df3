import type Database from "better-sqlite3";
import { Operation } from "../../../contract";
import { joinComparables, splitComparables } from "../cached-envelope";
import { CacheReadOptions, CacheStore, CachedAnswer } from "../store";

/* The SQLite store's cached answers by request key (cache_v2). */

export const PUT_CACHED =
  "INSERT INTO cache_v2 (key, op, envelope, analysis_id, fetched_at, cost_cents, call_id, comparables) VALUES (@key, @op, @envelope, @analysis_id, @fetched_at, @cost_cents, @call_id, @comparables) ";

export class SqliteCache implements CacheStore {
  readonly #getCached;
  readonly #getCachedWithoutComparables;
  readonly #putCached;

  constructor(db: Database.Database) {
    this.#getCached = db.prepare<[string], CacheRow>("SELECT * FROM cache_v2 WHERE key = ?");
    this.#getCachedWithoutComparables = db.prepare<[string], CacheRow>(
      "SELECT key, op, envelope, analysis_id, fetched_at, cost_cents, call_id FROM cache_v2 WHERE key = ?",
    );
    this.#putCached = db.prepare(
      PUT_CACHED +
        "ON CONFLICT (key) DO UPDATE SET op = excluded.op, envelope = excluded.envelope, analysis_id = excluded.analysis_id, fetched_at = excluded.fetched_at, cost_cents = excluded.cost_cents, call_id = excluded.call_id, comparables = excluded.comparables",
    );
  }

  async get(key: string, options: CacheReadOptions = {}): Promise<CachedAnswer | undefined> {
    const row = options.comparables === false ? this.#getCachedWithoutComparables.get(key) : this.#getCached.get(key);
    return row && cachedAnswerOf(row);
  }

  async put(entry: CachedAnswer): Promise<void> {
    this.#putCached.run(cacheRowOf(entry));
  }
}

export interface CacheRow {
  key: string;
  op: string;
  envelope: string;
  analysis_id: string | null;
  fetched_at: number;
  cost_cents: number;
  call_id: string | null;
  /** Left out by a read without the comparables. */
  comparables?: string | null;
}

export function cacheRowOf(entry: CachedAnswer): CacheRow {
  const { rest, comparables } = splitComparables(entry.envelope);
  return {
    key: entry.key,
    op: entry.op,
    envelope: JSON.stringify(rest),
    analysis_id: entry.analysisId ?? null,
    fetched_at: entry.fetchedAt,
    cost_cents: entry.costCents,
    call_id: entry.callId ?? null,
    comparables,
  };
}

export function cachedAnswerOf(row: CacheRow): CachedAnswer {
  return {
    key: row.key,
    op: row.op as Operation,
    envelope: joinComparables(JSON.parse(row.envelope) as CachedAnswer["envelope"], row.comparables),
    analysisId: row.analysis_id ?? undefined,
    fetchedAt: row.fetched_at,
    costCents: row.cost_cents,
    callId: row.call_id ?? undefined,
  };
}
