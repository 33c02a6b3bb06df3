import type Database from "better-sqlite3";
import { Operation } from "../../../contract";
import { joinComparables, splitComparables } from "../cached-envelope";
import { CacheReadOptions, CachedAnswer, StoredAnalysis } from "../store";

/*
 * The SQLite store's answers: cached answers by request key (cache_v2) and analyses by id
 * (analyses_v1), with the move of a cache written by the relay version before.
 */

const PUT_CACHED =
  "INSERT INTO cache_v2 (key, op, envelope, analysis_id, fetched_at, cost_cents, call_id, comparables) VALUES (@key, @op, @envelope, @analysis_id, @fetched_at, @cost_cents, @call_id, @comparables) ";

export class SqliteCache {
  readonly #getCached;
  readonly #getCachedWithoutComparables;
  readonly #putCached;
  readonly #getAnalysis;
  readonly #putAnalysis;

  constructor(db: Database.Database) {
    this.#getCached = db.prepare<[string], CacheRow>("SELECT * FROM cache_v2 WHERE key = ?");
    this.#getCachedWithoutComparables = db.prepare<[string], CacheRow>(
      "SELECT key, op, envelope, analysis_id, fetched_at, cost_cents, call_id FROM cache_v2 WHERE key = ?",
    );
    this.#putCached = db.prepare(
      PUT_CACHED +
        "ON CONFLICT (key) DO UPDATE SET op = excluded.op, envelope = excluded.envelope, analysis_id = excluded.analysis_id, fetched_at = excluded.fetched_at, cost_cents = excluded.cost_cents, call_id = excluded.call_id, comparables = excluded.comparables",
    );
    this.#getAnalysis = db.prepare<[string], AnalysisRow>("SELECT * FROM analyses_v1 WHERE id = ?");
    this.#putAnalysis = db.prepare(
      "INSERT INTO analyses_v1 (id, op, strategy, data, warnings, updated_at) VALUES (@id, @op, @strategy, @data, @warnings, @updated_at) " +
        "ON CONFLICT (id) DO UPDATE SET op = excluded.op, strategy = COALESCE(analyses_v1.strategy, excluded.strategy), data = excluded.data, warnings = excluded.warnings, updated_at = excluded.updated_at",
    );
  }

  getCached(key: string, options: CacheReadOptions = {}): CachedAnswer | undefined {
    const row = options.comparables === false ? this.#getCachedWithoutComparables.get(key) : this.#getCached.get(key);
    return row && cachedAnswerOf(row);
  }

  putCached(entry: CachedAnswer): void {
    this.#putCached.run(cacheRowOf(entry));
  }

  getAnalysis(id: string): StoredAnalysis | undefined {
    const row = this.#getAnalysis.get(id);
    if (!row) return undefined;
    return {
      id: row.id,
      op: row.op as Operation,
      strategy: (row.strategy ?? undefined) as Operation | undefined,
      data: JSON.parse(row.data) as StoredAnalysis["data"],
      warnings: JSON.parse(row.warnings) as StoredAnalysis["warnings"],
      updatedAt: row.updated_at,
    };
  }

  putAnalysis(a: StoredAnalysis): void {
    this.#putAnalysis.run({
      id: a.id,
      op: a.op,
      strategy: a.strategy ?? null,
      data: JSON.stringify(a.data),
      warnings: JSON.stringify(a.warnings),
      updated_at: a.updatedAt,
    });
  }
}

/**
 * Moves a cache_v1 table (one relay version back: comparables inside the envelope) into cache_v2,
 * once, in one transaction, then drops it: an upgraded relay answers its cached requests for free
 * at once, rather than through a send slot each and the ledger (the cache would otherwise start
 * empty). Another process opening the same file waits for the move, then finds nothing to move.
 */
export function moveCacheV1(db: Database.Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cache_v1'");
  if (!exists.get()) return;
  const page = db.prepare<[number], CacheRow & { rowid: number }>(
    "SELECT rowid, key, op, envelope, analysis_id, fetched_at, cost_cents FROM cache_v1 WHERE rowid > ? ORDER BY rowid LIMIT 500",
  );
  // An entry v2 already holds was written later: it stays.
  const insert = db.prepare(PUT_CACHED + "ON CONFLICT (key) DO NOTHING");
  const move = db.transaction(() => {
    if (!exists.get()) return;
    for (let last = 0; ;) {
      const rows = page.all(last);
      if (rows.length === 0) break;
      for (const row of rows) insert.run(cacheRowOf(cachedAnswerOf(row)));
      last = (rows[rows.length - 1] as { rowid: number }).rowid;
    }
    db.exec("DROP TABLE cache_v1");
  });
  // A large cache takes a while to move: a second process waits for it rather than failing to open.
  db.pragma("busy_timeout = 600000");
  try {
    move.immediate();
  } finally {
    db.pragma("busy_timeout = 5000");
  }
}

interface CacheRow {
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

interface AnalysisRow {
  id: string;
  op: string;
  strategy: string | null;
  data: string;
  warnings: string;
  updated_at: number;
}

function cacheRowOf(entry: CachedAnswer): CacheRow {
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

function cachedAnswerOf(row: CacheRow): CachedAnswer {
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
