import path from "node:path";
import Database from "better-sqlite3";
import { Operation } from "../../contract";
import { joinComparables, splitComparables } from "./cached-envelope";
import { ensurePrivateDir, ensurePrivateFile } from "./private-files";
import { SqliteCallerSpend, USAGE_COLUMNS, UsageRow, addCallerColumns, totalsOf } from "./sqlite-caller-spend";
import { Checkpointer } from "./sqlite-checkpointer";
import {
  CacheReadOptions,
  CachedAnswer,
  CallEnd,
  CallStart,
  CallState,
  CallerUsage,
  LastCall,
  LedgerRow,
  RelayStore,
  Reservation,
  StoredAnalysis,
  UsageTotals,
} from "./store";

/**
 * The embedded store: one SQLite file in RELAY_DATA_DIR. Tables carry a version in their names
 * (a change of layout gets new tables, never a silent reinterpretation), WAL is set once, and
 * statements are prepared once. better-sqlite3 is synchronous, so each method is atomic within
 * the process; reserveCall uses an IMMEDIATE transaction so two processes on one file cannot both
 * pass the budget.
 */
export class SqliteStore implements RelayStore {
  readonly kind = "sqlite" as const;
  readonly #db: Database.Database;
  readonly #stmt;
  readonly #reserve;
  readonly #finish;
  readonly #settle;
  readonly #callers: SqliteCallerSpend;

  /** Checkpoints the log on its own thread (a file store only). */
  readonly #checkpointer: Checkpointer | undefined;

  /** `file` is a path, or ":memory:" for tests. */
  constructor(file: string, options: { checkpointIntervalMs?: number } = {}) {
    if (file !== ":memory:") {
      ensurePrivateDir(path.dirname(file));
      // SQLite gives its -wal and -shm files the database file's mode.
      ensurePrivateFile(file);
    }
    this.#db = new Database(file);
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.pragma("busy_timeout = 5000");
    if (file !== ":memory:") {
      // Commits never checkpoint the log: the checkpointer's thread does (sqlite-checkpointer.ts).
      // A log that grew while it was busy is cut back to 64 MB when it restarts.
      this.#db.pragma("wal_autocheckpoint = 0");
      this.#db.pragma("journal_size_limit = 67108864");
    }
    this.#db.exec(`
      -- v2: the comparables apart from the rest of the envelope (cached-envelope.ts), and last, so a
      -- read that leaves them out stops before their overflow pages.
      CREATE TABLE IF NOT EXISTS cache_v2 (
        key TEXT PRIMARY KEY, op TEXT NOT NULL, envelope TEXT NOT NULL, analysis_id TEXT,
        fetched_at INTEGER NOT NULL, cost_cents INTEGER NOT NULL, comparables TEXT);
      CREATE TABLE IF NOT EXISTS analyses_v1 (
        id TEXT PRIMARY KEY, op TEXT NOT NULL, strategy TEXT, data TEXT NOT NULL, warnings TEXT NOT NULL, updated_at INTEGER NOT NULL);
      -- v2: each call carries the day it counts against, and spend_v2 keeps each day's committed
      -- spend up to date in the same transactions, so the budget check before a call reads one row
      -- rather than summing the day's ledger (which grew to milliseconds of blocked event loop a call).
      CREATE TABLE IF NOT EXISTS ledger_v2 (
        id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, cache_key TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending','billed','free','failed','unknown')),
        max_cents INTEGER NOT NULL, owner TEXT NOT NULL, started_at INTEGER NOT NULL, day INTEGER NOT NULL,
        status INTEGER, cents INTEGER NOT NULL DEFAULT 0, reports INTEGER NOT NULL DEFAULT 0,
        ai_functions INTEGER NOT NULL DEFAULT 0, analysis_id TEXT, error_code TEXT, finished_at INTEGER);
      CREATE INDEX IF NOT EXISTS ledger_v2_key ON ledger_v2 (cache_key, id);
      CREATE INDEX IF NOT EXISTS ledger_v2_started ON ledger_v2 (started_at);
      CREATE INDEX IF NOT EXISTS ledger_v2_pending ON ledger_v2 (state) WHERE state = 'pending';
      -- Billed cents plus the most of every call pending or unknown, by the day it counts against.
      CREATE TABLE IF NOT EXISTS spend_v2 (day INTEGER PRIMARY KEY, committed_cents INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS replicas_v1 (owner TEXT PRIMARY KEY, heartbeat_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS locks_v1 (key TEXT PRIMARY KEY, owner TEXT NOT NULL, until INTEGER NOT NULL);
    `);
    addCallerColumns(this.#db);
    this.#callers = new SqliteCallerSpend(this.#db);
    const db = this.#db;
    this.#stmt = {
      getCached: db.prepare<[string], CacheRow>("SELECT * FROM cache_v2 WHERE key = ?"),
      getCachedWithoutComparables: db.prepare<[string], CacheRow>(
        "SELECT key, op, envelope, analysis_id, fetched_at, cost_cents FROM cache_v2 WHERE key = ?",
      ),
      putCached: db.prepare(
        "INSERT INTO cache_v2 (key, op, envelope, analysis_id, fetched_at, cost_cents, comparables) VALUES (@key, @op, @envelope, @analysis_id, @fetched_at, @cost_cents, @comparables) " +
          "ON CONFLICT (key) DO UPDATE SET op = excluded.op, envelope = excluded.envelope, analysis_id = excluded.analysis_id, fetched_at = excluded.fetched_at, cost_cents = excluded.cost_cents, comparables = excluded.comparables",
      ),
      getAnalysis: db.prepare<[string], AnalysisRow>("SELECT * FROM analyses_v1 WHERE id = ?"),
      putAnalysis: db.prepare(
        "INSERT INTO analyses_v1 (id, op, strategy, data, warnings, updated_at) VALUES (@id, @op, @strategy, @data, @warnings, @updated_at) " +
          "ON CONFLICT (id) DO UPDATE SET op = excluded.op, strategy = COALESCE(analyses_v1.strategy, excluded.strategy), data = excluded.data, warnings = excluded.warnings, updated_at = excluded.updated_at",
      ),
      committed: db.prepare<[number], { committed_cents: number }>(
        "SELECT committed_cents FROM spend_v2 WHERE day = ?",
      ),
      addCommitted: db.prepare(
        "INSERT INTO spend_v2 (day, committed_cents) VALUES (@day, @cents) ON CONFLICT (day) DO UPDATE SET committed_cents = committed_cents + excluded.committed_cents",
      ),
      insertCall: db.prepare(
        "INSERT INTO ledger_v2 (op, cache_key, state, max_cents, owner, started_at, day, caller_id, caller_label) VALUES (@op, @cacheKey, 'pending', @maxCents, @owner, @startedAt, @day, @callerId, @callerLabel)",
      ),
      finishCall: db.prepare<FinishParams, { day: number; max_cents: number; caller_id: string | null }>(
        "UPDATE ledger_v2 SET state = @state, status = @status, cents = @cents, reports = @reports, ai_functions = @aiFunctions, analysis_id = @analysisId, error_code = @errorCode, finished_at = @finishedAt WHERE id = @id AND state IN ('pending', 'unknown') RETURNING day, max_cents, caller_id",
      ),
      lastCall: db.prepare<
        [string],
        { state: CallState; op: string; analysis_id: string | null; finished_at: number | null }
      >("SELECT state, op, analysis_id, finished_at FROM ledger_v2 WHERE cache_key = ? ORDER BY id DESC LIMIT 1"),
      usage: db.prepare<[number], UsageRow>(`SELECT ${USAGE_COLUMNS} FROM ledger_v2 WHERE started_at >= ?`),
      heartbeat: db.prepare(
        "INSERT INTO replicas_v1 (owner, heartbeat_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
      ),
      settleOrphans: db.prepare(
        "UPDATE ledger_v2 SET state = 'unknown', error_code = 'STR_OUTCOME_UNKNOWN', finished_at = @now WHERE state = 'pending' AND owner NOT IN (SELECT owner FROM replicas_v1 WHERE heartbeat_at >= @cutoff)",
      ),
      // A lock lives as long as its call may (the upstream timeout and a minute), far longer than a
      // replica that stopped heartbeating: its locks go with its calls, as the shared store's leases do.
      releaseOrphanLocks: db.prepare(
        "DELETE FROM locks_v1 WHERE owner NOT IN (SELECT owner FROM replicas_v1 WHERE heartbeat_at >= @cutoff)",
      ),
      ledger: db.prepare<[], LedgerDbRow>("SELECT * FROM ledger_v2 ORDER BY id"),
      // A lock is taken when free, expired, or already ours; the row is the lock, so processes sharing the file agree.
      acquireLock: db.prepare(
        "INSERT INTO locks_v1 (key, owner, until) VALUES (@key, @owner, @until) ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, until = excluded.until WHERE locks_v1.owner = excluded.owner OR locks_v1.until <= @now",
      ),
      releaseLock: db.prepare("DELETE FROM locks_v1 WHERE key = ? AND owner = ?"),
      ping: db.prepare("SELECT 1"),
    };
    this.#reserve = db.transaction(
      (call: CallStart, budgetCents: number, dayStart: number, callerBudgetCents: number | undefined): Reservation => {
        const committed = this.#stmt.committed.get(dayStart)?.committed_cents ?? 0;
        if (committed + call.maxCents > budgetCents) return { ok: false, limit: "relay", committedCents: committed };
        if (call.callerId !== undefined && callerBudgetCents !== undefined) {
          const own = this.#callers.committed(dayStart, call.callerId);
          if (own + call.maxCents > callerBudgetCents) return { ok: false, limit: "caller", committedCents: own };
        }
        const info = this.#stmt.insertCall.run({
          ...call,
          day: dayStart,
          callerId: call.callerId ?? null,
          callerLabel: call.callerLabel ?? null,
        });
        this.#stmt.addCommitted.run({ day: dayStart, cents: call.maxCents });
        this.#callers.add(dayStart, call.callerId, call.maxCents);
        return { ok: true, id: String(info.lastInsertRowid) };
      },
    );
    // A pending call held its most against its day, and so did one a sweep marked unknown while
    // its owner lived (see finishCall); it now holds what it cost (billed), still its most
    // (unknown: it may have billed), or nothing (free, failed).
    this.#finish = db.transaction((params: FinishParams): void => {
      const row = this.#stmt.finishCall.get(params);
      if (!row) return;
      const holds = params.state === "billed" ? params.cents : params.state === "unknown" ? row.max_cents : 0;
      if (holds === row.max_cents) return;
      this.#stmt.addCommitted.run({ day: row.day, cents: holds - row.max_cents });
      this.#callers.add(row.day, row.caller_id, holds - row.max_cents);
    });
    // The calls first, then the locks, in one step: whoever takes a freed lock sees its call unknown.
    this.#settle = db.transaction((now: number, cutoff: number): number => {
      const settled = this.#stmt.settleOrphans.run({ now, cutoff }).changes;
      this.#stmt.releaseOrphanLocks.run({ cutoff });
      return settled;
    });
    this.#moveCacheV1();
    if (file !== ":memory:") {
      const db = this.#db;
      this.#checkpointer = new Checkpointer({
        file,
        ...(options.checkpointIntervalMs !== undefined ? { intervalMs: options.checkpointIntervalMs } : {}),
        // Without its worker the store checkpoints in its commits again, as SQLite does by default.
        onFailure: () => {
          if (db.open) db.pragma("wal_autocheckpoint = 1000");
        },
      });
    }
  }

  /**
   * Moves a cache_v1 table (one relay version back: comparables inside the envelope) into cache_v2,
   * once, in one transaction, then drops it: an upgraded relay answers its cached requests for free
   * at once, rather than through a send slot each and the ledger (the cache would otherwise start
   * empty). Another process opening the same file waits for the move, then finds nothing to move.
   */
  #moveCacheV1(): void {
    const db = this.#db;
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cache_v1'");
    if (!exists.get()) return;
    const page = db.prepare<[number], CacheRow & { rowid: number }>(
      "SELECT rowid, key, op, envelope, analysis_id, fetched_at, cost_cents FROM cache_v1 WHERE rowid > ? ORDER BY rowid LIMIT 500",
    );
    // An entry v2 already holds was written later: it stays.
    const insert = db.prepare(
      "INSERT INTO cache_v2 (key, op, envelope, analysis_id, fetched_at, cost_cents, comparables) VALUES (@key, @op, @envelope, @analysis_id, @fetched_at, @cost_cents, @comparables) ON CONFLICT (key) DO NOTHING",
    );
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

  async getCached(key: string, options: CacheReadOptions = {}): Promise<CachedAnswer | undefined> {
    const row =
      options.comparables === false ? this.#stmt.getCachedWithoutComparables.get(key) : this.#stmt.getCached.get(key);
    return row && cachedAnswerOf(row);
  }

  async putCached(entry: CachedAnswer): Promise<void> {
    this.#stmt.putCached.run(cacheRowOf(entry));
  }

  async getAnalysis(id: string): Promise<StoredAnalysis | undefined> {
    const row = this.#stmt.getAnalysis.get(id);
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

  async putAnalysis(a: StoredAnalysis): Promise<void> {
    this.#stmt.putAnalysis.run({
      id: a.id,
      op: a.op,
      strategy: a.strategy ?? null,
      data: JSON.stringify(a.data),
      warnings: JSON.stringify(a.warnings),
      updated_at: a.updatedAt,
    });
  }

  async reserveCall(
    call: CallStart,
    budgetCents: number,
    dayStart: number,
    callerBudgetCents?: number,
  ): Promise<Reservation> {
    return this.#reserve.immediate(call, budgetCents, dayStart, callerBudgetCents);
  }

  async committedCents(dayStart: number): Promise<number> {
    return this.#stmt.committed.get(dayStart)?.committed_cents ?? 0;
  }

  async callerCommittedCents(dayStart: number, callerId: string): Promise<number> {
    return this.#callers.committed(dayStart, callerId);
  }

  /**
   * Also settles a call a sweep marked unknown: a relay whose process was suspended past three
   * beats (a laptop asleep) while another process on the file swept its calls.
   */
  async finishCall(id: string, end: CallEnd): Promise<void> {
    this.#finish.immediate({
      id: Number(id),
      state: end.state,
      status: end.status ?? null,
      cents: end.cents,
      reports: end.reports,
      aiFunctions: end.aiFunctions,
      analysisId: end.analysisId ?? null,
      errorCode: end.errorCode ?? null,
      finishedAt: end.finishedAt,
    });
  }

  async lastCall(cacheKey: string): Promise<LastCall | undefined> {
    const r = this.#stmt.lastCall.get(cacheKey);
    return (
      r && {
        state: r.state,
        op: r.op as Operation,
        analysisId: r.analysis_id ?? undefined,
        finishedAt: r.finished_at ?? undefined,
      }
    );
  }

  async usage(since: number): Promise<UsageTotals> {
    return totalsOf(this.#stmt.usage.get(since) as UsageRow);
  }

  async usageByCaller(since: number): Promise<CallerUsage[]> {
    return this.#callers.usage(since);
  }

  /**
   * The store's clock is this machine's, which every process on the file shares, and a local file
   * is never away for some of them only: a sweep needs no proof that the sweeper's beats were
   * steady, and a restarted relay settles its dead predecessor's calls at its first beat.
   */
  async heartbeat(owner: string, _intervalMs: number): Promise<void> {
    this.#stmt.heartbeat.run(owner, Date.now());
  }

  async settleOrphans(_sweeper: string, staleAfterMs: number): Promise<number> {
    const now = Date.now();
    return this.#settle.immediate(now, now - staleAfterMs);
  }

  async acquireLock(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    return this.#stmt.acquireLock.run({ key, owner, until: now + ttlMs, now }).changes > 0;
  }

  async releaseLock(key: string, owner: string): Promise<void> {
    this.#stmt.releaseLock.run(key, owner);
  }

  async ledger(): Promise<LedgerRow[]> {
    return this.#stmt.ledger.all().map((r) => ({
      id: String(r.id),
      op: r.op as Operation,
      cacheKey: r.cache_key,
      state: r.state,
      maxCents: r.max_cents,
      owner: r.owner,
      startedAt: r.started_at,
      status: r.status ?? undefined,
      cents: r.cents,
      reports: r.reports,
      aiFunctions: r.ai_functions,
      analysisId: r.analysis_id ?? undefined,
      errorCode: r.error_code ?? undefined,
      finishedAt: r.finished_at ?? undefined,
      callerId: r.caller_id ?? undefined,
      callerLabel: r.caller_label ?? undefined,
    }));
  }

  async ping(): Promise<void> {
    this.#stmt.ping.get();
  }

  async close(): Promise<void> {
    await this.#checkpointer?.stop();
    if (this.#db.open) this.#db.close();
  }
}

interface FinishParams {
  id: number;
  state: CallEnd["state"];
  status: number | null;
  cents: number;
  reports: number;
  aiFunctions: number;
  analysisId: string | null;
  errorCode: string | null;
  finishedAt: number;
}
interface CacheRow {
  key: string;
  op: string;
  envelope: string;
  analysis_id: string | null;
  fetched_at: number;
  cost_cents: number;
  /** Left out by a read without the comparables. */
  comparables?: string | null;
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
  };
}
interface AnalysisRow {
  id: string;
  op: string;
  strategy: string | null;
  data: string;
  warnings: string;
  updated_at: number;
}
interface LedgerDbRow {
  id: number;
  op: string;
  cache_key: string;
  state: CallState;
  max_cents: number;
  owner: string;
  started_at: number;
  status: number | null;
  cents: number;
  reports: number;
  ai_functions: number;
  analysis_id: string | null;
  error_code: string | null;
  finished_at: number | null;
  caller_id: string | null;
  caller_label: string | null;
}
