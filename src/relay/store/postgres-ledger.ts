import { Pool } from "pg";
import { Operation } from "../../contract";
import { COMMITTED_CENTS, DB_NOW_MS, LOCK_MIGRATE, MIGRATIONS, STEADY_GAP_BEATS } from "./postgres-migrations";
import { partError } from "./shared-clients";
import {
  CallEnd,
  CallStart,
  CallState,
  CallerUsage,
  LastCall,
  LedgerRow,
  Reservation,
  StoredAnalysis,
  UsageTotals,
} from "./store";

/**
 * The Postgres half of the shared store: the ledger of every call, the analyses by id, and the
 * replicas' heartbeats, in one schema per namespace. Tables carry a version in their names, as in
 * the SQLite store; migrations run on start (and again if the schema disappears), one replica at a
 * time under an advisory lock. Times are epoch milliseconds (bigint), as the interface has them.
 */

/** SQLSTATEs meaning the tables are gone (a wiped or replaced database): migrate again. */
const MISSING_RELATION = new Set(["42P01", "3F000"]);

export class PostgresLedger {
  readonly #pool: Pool;
  readonly #schema: string;
  /** The schema as an identifier; the namespace is checked to be [a-z_][a-z0-9_]* (config.ts). */
  readonly #s: string;
  #migrated: Promise<void> | undefined;
  /** Reservations that failed, whose rows may exist all the same (see reserveCall). */
  readonly #unheard: CallStart[] = [];
  /**
   * The reads every request makes before it waits for a send slot come in bursts (a batch asks
   * for all its items at once). One query per burst keeps the pool free for the reservations of
   * calls about to be sent: a reservation stuck behind a thousand reads would go out late, in a
   * bunch with the next ones, and the service would count them as over its limit.
   */
  readonly #lastCalls = new TurnBatcher<string, LastCall | undefined>(async (keys) => {
    const found = await this.#lastCallsOf(keys);
    return keys.map((k) => found.get(k));
  });
  readonly #usage = new TurnBatcher<number, UsageTotals>(async (sinces) => {
    const distinct = [...new Set(sinces)];
    const totals = await Promise.all(distinct.map((since) => this.#usageSince(since)));
    return sinces.map((since) => totals[distinct.indexOf(since)] as UsageTotals);
  });
  /** Keys `<dayStart>:<callerId>`; a turn's few distinct callers each get one query. */
  readonly #callerCommitted = new TurnBatcher<string, number>(async (keys) => {
    const distinct = [...new Set(keys)];
    const cents = await Promise.all(
      distinct.map(async (key) => {
        const at = key.indexOf(":");
        const { rows } = await this.#query<{ cents: string }>(
          `SELECT COALESCE(SUM(${COMMITTED_CENTS}), 0) AS cents FROM ${this.#s}.ledger_v1 WHERE caller_id = $2 AND started_at >= $1`,
          [Number(key.slice(0, at)), key.slice(at + 1)],
        );
        return Number(rows[0]?.cents ?? 0);
      }),
    );
    return keys.map((key) => cents[distinct.indexOf(key)] as number);
  });

  constructor(pool: Pool, schema: string) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new RangeError(`Expected schema to be lowercase letters, digits and _, got ${JSON.stringify(schema)}`);
    this.#pool = pool;
    this.#schema = schema;
    this.#s = `"${schema}"`;
  }

  /** Runs the migrations now; a failure is kept for the next call to retry. */
  ready(): Promise<void> {
    this.#migrated ??= this.#migrate().catch((error: unknown) => {
      this.#migrated = undefined;
      throw partError("Postgres", error);
    });
    return this.#migrated;
  }

  async getAnalysis(id: string): Promise<StoredAnalysis | undefined> {
    const { rows } = await this.#query<AnalysisRow>(`SELECT * FROM ${this.#s}.analyses_v1 WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      op: row.op as Operation,
      strategy: (row.strategy ?? undefined) as Operation | undefined,
      data: JSON.parse(row.data) as StoredAnalysis["data"],
      warnings: JSON.parse(row.warnings) as StoredAnalysis["warnings"],
      updatedAt: Number(row.updated_at),
    };
  }

  async putAnalysis(a: StoredAnalysis): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#s}.analyses_v1 (id, op, strategy, data, warnings, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET op = excluded.op, strategy = COALESCE(analyses_v1.strategy, excluded.strategy),
         data = excluded.data, warnings = excluded.warnings, updated_at = excluded.updated_at`,
      [a.id, a.op, a.strategy ?? null, JSON.stringify(a.data), JSON.stringify(a.warnings), a.updatedAt],
    );
  }

  /**
   * The budget check and the pending row, atomically across replicas (reserve_call_v1 above). A
   * reservation that fails may still have been written (the connection dropped after the commit);
   * the caller sends nothing without its id, so such a row is settled as failed by the next
   * heartbeat (#settleUnheard), not left pending for ever.
   */
  async reserveCall(
    call: CallStart,
    budgetCents: number,
    dayStart: number,
    callerBudgetCents?: number,
  ): Promise<Reservation> {
    type Row = { reserved_id: string | null; committed_cents: string; refused_by: "relay" | "caller" | null };
    let rows: Row[];
    try {
      ({ rows } = await this.#query<Row>(
        `SELECT reserved_id, committed_cents, refused_by FROM ${this.#s}.reserve_call_v2($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          call.op,
          call.cacheKey,
          call.maxCents,
          call.owner,
          call.startedAt,
          budgetCents,
          dayStart,
          call.callerId ?? null,
          call.callerLabel ?? null,
          callerBudgetCents ?? null,
        ],
      ));
    } catch (error) {
      this.#unheard.push(call);
      throw error;
    }
    const row = rows[0];
    if (!row) throw partError("Postgres", new Error("the reservation returned no row"));
    return row.reserved_id === null
      ? { ok: false, limit: row.refused_by ?? "relay", committedCents: Number(row.committed_cents) }
      : { ok: true, id: String(row.reserved_id) };
  }

  /** pending → final in one statement; also unknown → final, for a call swept while its owner lived. */
  async finishCall(id: string, end: CallEnd): Promise<void> {
    await this.#query(
      `UPDATE ${this.#s}.ledger_v1 SET state = $2, status = $3, cents = $4, reports = $5, ai_functions = $6, analysis_id = $7, error_code = $8, finished_at = $9
       WHERE id = $1 AND state IN ('pending', 'unknown')`,
      [
        id,
        end.state,
        end.status ?? null,
        end.cents,
        end.reports,
        end.aiFunctions,
        end.analysisId ?? null,
        end.errorCode ?? null,
        end.finishedAt,
      ],
    );
  }

  /** Batched: the calls made in one turn of the event loop share one query (see #lastCalls). */
  lastCall(cacheKey: string): Promise<LastCall | undefined> {
    return this.#lastCalls.load(cacheKey);
  }

  /** Batched like lastCall: a batch of 1,000 items asks once, not 1,000 times. */
  usage(since: number): Promise<UsageTotals> {
    return this.#usage.load(since);
  }

  /** Batched like usage: the items of a batch that one caller sends ask once a turn. */
  callerCommittedCents(dayStart: number, callerId: string): Promise<number> {
    return this.#callerCommitted.load(`${dayStart}:${callerId}`);
  }

  async usageByCaller(since: number): Promise<CallerUsage[]> {
    const { rows } = await this.#query<UsageDbRow & { caller_id: string | null; caller_label: string | null }>(
      `SELECT caller_id, MAX(caller_label) AS caller_label, ${USAGE_COLUMNS} FROM ${this.#s}.ledger_v1 WHERE started_at >= $1 GROUP BY caller_id`,
      [since],
    );
    return rows.map((r) => ({
      ...totalsOf(r),
      callerId: r.caller_id ?? undefined,
      callerLabel: r.caller_label ?? undefined,
    }));
  }

  async #lastCallsOf(keys: readonly string[]): Promise<Map<string, LastCall>> {
    const { rows } = await this.#query<{
      cache_key: string;
      state: CallState;
      op: Operation;
      analysis_id: string | null;
      finished_at: string | null;
    }>(
      `SELECT DISTINCT ON (cache_key) cache_key, state, op, analysis_id, finished_at FROM ${this.#s}.ledger_v1 WHERE cache_key = ANY($1::text[]) ORDER BY cache_key, id DESC`,
      [keys],
    );
    return new Map(
      rows.map((r) => [
        r.cache_key,
        {
          state: r.state,
          op: r.op,
          analysisId: r.analysis_id ?? undefined,
          finishedAt: r.finished_at === null ? undefined : Number(r.finished_at),
        },
      ]),
    );
  }

  async #usageSince(since: number): Promise<UsageTotals> {
    const { rows } = await this.#query<UsageDbRow>(
      `SELECT ${USAGE_COLUMNS} FROM ${this.#s}.ledger_v1 WHERE started_at >= $1`,
      [since],
    );
    const r = rows[0];
    if (!r) throw new Error("usage returned no row");
    return totalsOf(r);
  }

  /**
   * On the database's clock. A beat that comes more than STEADY_GAP_BEATS intervals after the
   * last one (beats were missed: this replica stalled, or could not reach the database) starts a
   * new steady run, which settleOrphans asks of a sweeper.
   */
  async heartbeat(owner: string, intervalMs: number): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#s}.replicas_v1 AS r (owner, heartbeat_at, beating_since) VALUES ($1, ${DB_NOW_MS}, ${DB_NOW_MS})
       ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,
         beating_since = CASE WHEN r.heartbeat_at >= excluded.heartbeat_at - $2 THEN COALESCE(r.beating_since, excluded.heartbeat_at) ELSE excluded.heartbeat_at END`,
      [owner, Math.round(intervalMs * STEADY_GAP_BEATS)],
    );
    await this.#settleUnheard();
  }

  /**
   * Judged on the database's clock, and only by a sweeper whose own beats have been steady for
   * the whole stale window: Postgres answered it throughout, so a replica silent all that time
   * was not kept away by an outage that also kept the sweeper away (after which every heartbeat
   * looks stale at once). A replica cut off from Postgres alone still looks dead; its own finish
   * settles its calls again (finishCall).
   */
  async settleOrphans(sweeper: string, staleAfterMs: number): Promise<number> {
    const result = await this.#query(
      `WITH clock AS (SELECT ${DB_NOW_MS} AS now)
       UPDATE ${this.#s}.ledger_v1 SET state = 'unknown', error_code = 'STR_OUTCOME_UNKNOWN', finished_at = (SELECT now FROM clock)
       WHERE state = 'pending'
         AND owner NOT IN (SELECT owner FROM ${this.#s}.replicas_v1, clock WHERE heartbeat_at >= clock.now - $2)
         AND EXISTS (SELECT 1 FROM ${this.#s}.replicas_v1, clock
           WHERE owner = $1 AND beating_since <= clock.now - $2 AND heartbeat_at >= clock.now - $2 * ${STEADY_GAP_BEATS} / 3)`,
      [sweeper, staleAfterMs],
    );
    return result.rowCount ?? 0;
  }

  /** Reservations this replica never heard back about: it sent nothing for them, so they failed. */
  async #settleUnheard(): Promise<void> {
    while (this.#unheard.length > 0) {
      const call = this.#unheard[0] as CallStart;
      await this.#query(
        `UPDATE ${this.#s}.ledger_v1 SET state = 'failed', error_code = 'STR_STORE_UNAVAILABLE', finished_at = ${DB_NOW_MS}
         WHERE owner = $1 AND cache_key = $2 AND started_at = $3 AND state IN ('pending', 'unknown')`,
        [call.owner, call.cacheKey, call.startedAt],
      );
      this.#unheard.shift();
    }
  }

  async ledger(): Promise<LedgerRow[]> {
    const { rows } = await this.#query<LedgerDbRow>(`SELECT * FROM ${this.#s}.ledger_v1 ORDER BY id`);
    return rows.map((r) => ({
      id: String(r.id),
      op: r.op as Operation,
      cacheKey: r.cache_key,
      state: r.state,
      maxCents: r.max_cents,
      owner: r.owner,
      startedAt: Number(r.started_at),
      status: r.status ?? undefined,
      cents: r.cents,
      reports: r.reports,
      aiFunctions: r.ai_functions,
      analysisId: r.analysis_id ?? undefined,
      errorCode: r.error_code ?? undefined,
      finishedAt: r.finished_at === null ? undefined : Number(r.finished_at),
      callerId: r.caller_id ?? undefined,
      callerLabel: r.caller_label ?? undefined,
    }));
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

  async #query<R extends object>(
    text: string,
    values: unknown[] = [],
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    await this.ready();
    try {
      return await this.#pool.query<R & Record<string, unknown>>(text, values);
    } catch (error) {
      this.#forgetMigrationsIfGone(error);
      throw partError("Postgres", error);
    }
  }

  #forgetMigrationsIfGone(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && MISSING_RELATION.has(code)) this.#migrated = undefined;
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      // Replicas starting together take turns; the lock ends with the transaction.
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1), $2)", [this.#schema, LOCK_MIGRATE]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.#s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.#s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${this.#s}.migrations`);
      const done = new Set(rows.map((r) => r.version));
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query(m.sql(this.#s, `'${this.#schema}'`));
        await client.query(`INSERT INTO ${this.#s}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      }
      await client.query("COMMIT");
      client.release();
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      client.release(true);
      throw error;
    }
  }
}

/**
 * Collects the loads asked for in one turn of the event loop and answers them with one call of
 * `fetch` (at most `max` keys each). Each call's query starts after every load it answers was
 * asked for, so a batched read sees every write its callers finished before asking.
 */
interface Load<K, V> {
  key: K;
  resolve: (v: V) => void;
  reject: (e: unknown) => void;
}

class TurnBatcher<K, V> {
  readonly #fetch: (keys: K[]) => Promise<V[]>;
  readonly #max: number;
  #batch: Load<K, V>[] | undefined;

  constructor(fetch: (keys: K[]) => Promise<V[]>, max = 500) {
    this.#fetch = fetch;
    this.#max = max;
  }

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      if (!this.#batch) {
        const batch: Load<K, V>[] = [];
        this.#batch = batch;
        setImmediate(() => {
          if (this.#batch === batch) this.#batch = undefined;
          for (let i = 0; i < batch.length; i += this.#max) void this.#run(batch.slice(i, i + this.#max));
        });
      }
      this.#batch.push({ key, resolve, reject });
    });
  }

  async #run(batch: Load<K, V>[]): Promise<void> {
    try {
      const values = await this.#fetch(batch.map((b) => b.key));
      batch.forEach((b, i) => b.resolve(values[i] as V));
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }
}

interface AnalysisRow {
  id: string;
  op: string;
  strategy: string | null;
  data: string;
  warnings: string;
  updated_at: string;
}
interface LedgerDbRow {
  id: string;
  op: string;
  cache_key: string;
  state: CallState;
  max_cents: number;
  owner: string;
  started_at: string;
  status: number | null;
  cents: number;
  reports: number;
  ai_functions: number;
  analysis_id: string | null;
  error_code: string | null;
  finished_at: string | null;
  caller_id: string | null;
  caller_label: string | null;
}
type UsageDbRow = Record<"calls" | "reports" | "ai_functions" | "billed" | "unknown" | "pending", string>;

/** Sums of ledger rows as usage counts them. */
const USAGE_COLUMNS = `COUNT(*) AS calls, COALESCE(SUM(reports), 0) AS reports, COALESCE(SUM(ai_functions), 0) AS ai_functions,
  COALESCE(SUM(CASE WHEN state = 'billed' THEN cents ELSE 0 END), 0) AS billed,
  COALESCE(SUM(CASE WHEN state = 'unknown' THEN max_cents ELSE 0 END), 0) AS unknown,
  COALESCE(SUM(CASE WHEN state = 'pending' THEN max_cents ELSE 0 END), 0) AS pending`;

function totalsOf(r: UsageDbRow): UsageTotals {
  return {
    calls: Number(r.calls),
    reports: Number(r.reports),
    aiFunctions: Number(r.ai_functions),
    billedCents: Number(r.billed),
    unknownCents: Number(r.unknown),
    pendingCents: Number(r.pending),
  };
}
