import { Operation } from "../../../contract";
import { PostgresDb } from "./postgres-db";
import { COMMITTED_CENTS_SQL, USAGE_SUMS_SQL, UsageSumsRow, totalsOf } from "../committed-spend";
import { TurnBatcher } from "./postgres-turn-batcher";
import { CallState, CallerUsage, LastCall, LedgerRow, UsageTotals } from "../store";

/*
 * What the relay reads from the Postgres ledger: each request's last call, usage and a caller's
 * committed spend (batched by turn, postgres-turn-batcher.ts, as a batch asks for all its items at
 * once), usage by caller, and the whole ledger.
 */

export class PostgresLedgerReads {
  readonly #db: PostgresDb;
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
    const cents = await Promise.all(distinct.map((key) => this.#callerCommittedOf(key)));
    return keys.map((key) => cents[distinct.indexOf(key)] as number);
  });

  constructor(db: PostgresDb) {
    this.#db = db;
  }

  /** Batched: the calls made in one turn of the event loop share one query. */
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
    const { rows } = await this.#db.query<UsageSumsRow & { caller_id: string | null; caller_label: string | null }>(
      `SELECT caller_id, MAX(caller_label) AS caller_label, ${USAGE_SUMS_SQL} FROM ${this.#db.s}.ledger_v1 WHERE started_at >= $1 GROUP BY caller_id`,
      [since],
    );
    return rows.map((r) => ({
      ...totalsOf(r),
      callerId: r.caller_id ?? undefined,
      callerLabel: r.caller_label ?? undefined,
    }));
  }

  async ledger(): Promise<LedgerRow[]> {
    const { rows } = await this.#db.query<LedgerDbRow>(`SELECT * FROM ${this.#db.s}.ledger_v1 ORDER BY id`);
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

  async #lastCallsOf(keys: readonly string[]): Promise<Map<string, LastCall>> {
    const { rows } = await this.#db.query<{
      cache_key: string;
      state: CallState;
      op: Operation;
      analysis_id: string | null;
      finished_at: string | null;
      error_code: string | null;
    }>(
      `SELECT DISTINCT ON (cache_key) cache_key, state, op, analysis_id, finished_at, error_code FROM ${this.#db.s}.ledger_v1 WHERE cache_key = ANY($1::text[]) ORDER BY cache_key, id DESC`,
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
          errorCode: r.error_code ?? undefined,
        },
      ]),
    );
  }

  async #usageSince(since: number): Promise<UsageTotals> {
    const { rows } = await this.#db.query<UsageSumsRow>(
      `SELECT ${USAGE_SUMS_SQL} FROM ${this.#db.s}.ledger_v1 WHERE started_at >= $1`,
      [since],
    );
    const r = rows[0];
    if (!r) throw new Error("usage returned no row");
    return totalsOf(r);
  }

  /** `key` is `<dayStart>:<callerId>`. */
  async #callerCommittedOf(key: string): Promise<number> {
    const at = key.indexOf(":");
    const { rows } = await this.#db.query<{ cents: string }>(
      `SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) AS cents FROM ${this.#db.s}.ledger_v1 WHERE caller_id = $2 AND started_at >= $1`,
      [Number(key.slice(0, at)), key.slice(at + 1)],
    );
    return Number(rows[0]?.cents ?? 0);
  }
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
