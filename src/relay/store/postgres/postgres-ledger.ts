import {
  COMMITTED_CENTS_SQL,
  OPEN_STATES,
  USAGE_SUMS_SQL,
  UsageSumsRow,
  committedCentsOf,
  sqlStates,
  totalsOf,
} from "../committed-spend";
import { LAST_CALL_COLUMNS, LastCallDbRow, LedgerDbRow, lastCallOf, ledgerRowOf } from "../ledger-rows";
import { partError } from "../store-down";
import { CallEnd, CallStart, CallerUsage, LastCall, LedgerRow, LedgerStore, Reservation, UsageTotals } from "../store";
import { PostgresDb } from "./postgres-db";
import { DB_NOW_MS } from "./postgres-migrations";
import { TurnBatcher } from "./postgres-turn-batcher";

/*
 * The shared store's ledger, in Postgres: a call's reservation before it is sent (the budget checks
 * and the pending row, atomically across replicas, in the reservation function of
 * postgres-migrations.ts), its settlement after, and the reads. The reads every request makes
 * (its last call, the committed spend) are batched by turn (postgres-turn-batcher.ts), as a batch
 * asks for all its items at once.
 */

export class PostgresLedger implements LedgerStore {
  readonly #db: PostgresDb;
  /** Reservations that failed, whose rows may exist all the same (see reserveCall). */
  readonly #unheard: CallStart[] = [];
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

  get #table(): string {
    return `${this.#db.s}.ledger_v2`;
  }

  /**
   * A reservation that fails may still have been written (the connection dropped after the
   * commit); the caller sends nothing without its id, so such a row is settled as failed by the
   * next heartbeat (settleUnheard), not left pending for ever.
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
      ({ rows } = await this.#db.query<Row>(
        `SELECT reserved_id, committed_cents, refused_by FROM ${this.#db.s}.reserve_call_v3($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
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

  /** Batched: the relay's from the day's usage (a batch of 1,000 items asks once), a caller's once a turn. */
  async committedCents(dayStart: number, callerId?: string): Promise<number> {
    if (callerId !== undefined) return this.#callerCommitted.load(`${dayStart}:${callerId}`);
    return committedCentsOf(await this.#usage.load(dayStart));
  }

  /** An open call → its end, in one statement; an unknown one too, for a call swept while its owner lived. */
  async finishCall(id: string, end: CallEnd): Promise<void> {
    await this.#db.query(
      `UPDATE ${this.#table} SET state = $2, status = $3, cents = $4, reports = $5, ai_functions = $6, analysis_id = $7, error_code = $8, finished_at = $9
       WHERE id = $1 AND state IN (${sqlStates(OPEN_STATES)})`,
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

  /** Reservations this replica never heard back about: it sent nothing for them, so they failed. */
  async settleUnheard(): Promise<void> {
    while (this.#unheard.length > 0) {
      const call = this.#unheard[0] as CallStart;
      await this.#db.query(
        `UPDATE ${this.#table} SET state = 'failed', error_code = 'STR_STORE_UNAVAILABLE', finished_at = ${DB_NOW_MS}
         WHERE owner = $1 AND cache_key = $2 AND started_at = $3 AND state IN (${sqlStates(OPEN_STATES)})`,
        [call.owner, call.cacheKey, call.startedAt],
      );
      this.#unheard.shift();
    }
  }

  /** Batched: the calls made in one turn of the event loop share one query. */
  lastCall(cacheKey: string): Promise<LastCall | undefined> {
    return this.#lastCalls.load(cacheKey);
  }

  /** Batched like lastCall. */
  usage(since: number): Promise<UsageTotals> {
    return this.#usage.load(since);
  }

  async usageByCaller(since: number): Promise<CallerUsage[]> {
    const { rows } = await this.#db.query<UsageSumsRow & { caller_id: string | null; caller_label: string | null }>(
      `SELECT caller_id, MAX(caller_label) AS caller_label, ${USAGE_SUMS_SQL} FROM ${this.#table} WHERE started_at >= $1 GROUP BY caller_id`,
      [since],
    );
    return rows.map((r) => ({
      ...totalsOf(r),
      callerId: r.caller_id ?? undefined,
      callerLabel: r.caller_label ?? undefined,
    }));
  }

  async rows(): Promise<LedgerRow[]> {
    const { rows } = await this.#db.query<LedgerDbRow>(`SELECT * FROM ${this.#table} ORDER BY id`);
    return rows.map(ledgerRowOf);
  }

  async #lastCallsOf(keys: readonly string[]): Promise<Map<string, LastCall>> {
    const { rows } = await this.#db.query<LastCallDbRow & { cache_key: string }>(
      `SELECT DISTINCT ON (cache_key) cache_key, ${LAST_CALL_COLUMNS} FROM ${this.#table} WHERE cache_key = ANY($1::text[]) ORDER BY cache_key, id DESC`,
      [keys],
    );
    return new Map(rows.map((r) => [r.cache_key, lastCallOf(r)]));
  }

  async #usageSince(since: number): Promise<UsageTotals> {
    const { rows } = await this.#db.query<UsageSumsRow>(
      `SELECT ${USAGE_SUMS_SQL} FROM ${this.#table} WHERE started_at >= $1`,
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
      `SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) AS cents FROM ${this.#table} WHERE caller_id = $2 AND started_at >= $1`,
      [Number(key.slice(0, at)), key.slice(at + 1)],
    );
    return Number(rows[0]?.cents ?? 0);
  }
}
