import type Database from "better-sqlite3";
import { OPEN_STATES, USAGE_SUMS_SQL, UsageSumsRow, heldCents, sqlStates, totalsOf } from "../committed-spend";
import { LAST_CALL_COLUMNS, LastCallDbRow, LedgerDbRow, lastCallOf, ledgerRowOf } from "../ledger-rows";
import { CallEnd, CallStart, CallerUsage, LastCall, LedgerRow, LedgerStore, Reservation, UsageTotals } from "../store";

/*
 * The SQLite store's ledger: a row for every call sent to the service (ledger_v2), and the spend
 * each day commits, the relay's (spend_v2) and each caller's (caller_spend_v1), kept as running
 * totals in the same transactions as the rows, so a budget check reads one row rather than summing
 * the day's ledger, which grows all day. better-sqlite3 is synchronous, so each method is atomic
 * within the process; the writes use IMMEDIATE transactions so two processes on one file cannot
 * both pass a budget.
 */

export class SqliteLedger implements LedgerStore {
  readonly #committed;
  readonly #callerCommitted;
  readonly #addCommitted;
  readonly #addCallerCommitted;
  readonly #insertCall;
  readonly #finishCall;
  readonly #lastCall;
  readonly #usage;
  readonly #usageByCaller;
  readonly #rows;
  readonly #reserve;
  readonly #finish;

  constructor(db: Database.Database) {
    this.#committed = db.prepare<[number], { committed_cents: number }>(
      "SELECT committed_cents FROM spend_v2 WHERE day = ?",
    );
    this.#callerCommitted = db.prepare<[number, string], { committed_cents: number }>(
      "SELECT committed_cents FROM caller_spend_v1 WHERE day = ? AND caller_id = ?",
    );
    this.#addCommitted = db.prepare(
      "INSERT INTO spend_v2 (day, committed_cents) VALUES (@day, @cents) ON CONFLICT (day) DO UPDATE SET committed_cents = committed_cents + excluded.committed_cents",
    );
    this.#addCallerCommitted = db.prepare(
      "INSERT INTO caller_spend_v1 (day, caller_id, committed_cents) VALUES (@day, @callerId, @cents) " +
        "ON CONFLICT (day, caller_id) DO UPDATE SET committed_cents = committed_cents + excluded.committed_cents",
    );
    this.#insertCall = db.prepare(
      "INSERT INTO ledger_v2 (op, cache_key, state, max_cents, owner, started_at, day, caller_id, caller_label) VALUES (@op, @cacheKey, 'pending', @maxCents, @owner, @startedAt, @day, @callerId, @callerLabel)",
    );
    this.#finishCall = db.prepare<FinishParams, { day: number; max_cents: number; caller_id: string | null }>(
      `UPDATE ledger_v2 SET state = @state, status = @status, cents = @cents, reports = @reports, ai_functions = @aiFunctions, analysis_id = @analysisId, error_code = @errorCode, finished_at = @finishedAt WHERE id = @id AND state IN (${sqlStates(OPEN_STATES)}) RETURNING day, max_cents, caller_id`,
    );
    this.#lastCall = db.prepare<[string], LastCallDbRow>(
      `SELECT ${LAST_CALL_COLUMNS} FROM ledger_v2 WHERE cache_key = ? ORDER BY id DESC LIMIT 1`,
    );
    this.#usage = db.prepare<[number], UsageSumsRow>(`SELECT ${USAGE_SUMS_SQL} FROM ledger_v2 WHERE started_at >= ?`);
    this.#usageByCaller = db.prepare<
      [number],
      UsageSumsRow & { caller_id: string | null; caller_label: string | null }
    >(
      `SELECT caller_id, MAX(caller_label) AS caller_label, ${USAGE_SUMS_SQL} FROM ledger_v2 WHERE started_at >= ? GROUP BY caller_id`,
    );
    this.#rows = db.prepare<[], LedgerDbRow>("SELECT * FROM ledger_v2 ORDER BY id");
    this.#reserve = db.transaction(this.#reserveIn.bind(this));
    this.#finish = db.transaction(this.#finishIn.bind(this));
  }

  async reserveCall(
    call: CallStart,
    budgetCents: number,
    dayStart: number,
    callerBudgetCents?: number,
  ): Promise<Reservation> {
    return this.#reserve.immediate(call, budgetCents, dayStart, callerBudgetCents);
  }

  async committedCents(dayStart: number, callerId?: string): Promise<number> {
    return this.#committedOf(dayStart, callerId);
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
    const r = this.#lastCall.get(cacheKey);
    return r && lastCallOf(r);
  }

  async usage(since: number): Promise<UsageTotals> {
    return totalsOf(this.#usage.get(since) as UsageSumsRow);
  }

  async usageByCaller(since: number): Promise<CallerUsage[]> {
    return this.#usageByCaller
      .all(since)
      .map((r) => ({ ...totalsOf(r), callerId: r.caller_id ?? undefined, callerLabel: r.caller_label ?? undefined }));
  }

  async rows(): Promise<LedgerRow[]> {
    return this.#rows.all().map(ledgerRowOf);
  }

  #committedOf(day: number, callerId?: string): number {
    const row = callerId === undefined ? this.#committed.get(day) : this.#callerCommitted.get(day, callerId);
    return row?.committed_cents ?? 0;
  }

  /** Adds to the day's running totals, the relay's and the caller's, within the caller's transaction. */
  #add(day: number, callerId: string | null | undefined, cents: number): void {
    if (cents === 0) return;
    this.#addCommitted.run({ day, cents });
    if (callerId) this.#addCallerCommitted.run({ day, callerId, cents });
  }

  /** The budget checks and the pending row, in one transaction: the relay's, then the caller's own. */
  #reserveIn(call: CallStart, budgetCents: number, dayStart: number, callerBudgetCents?: number): Reservation {
    const committed = this.#committedOf(dayStart);
    if (committed + call.maxCents > budgetCents) return { ok: false, limit: "relay", committedCents: committed };
    if (call.callerId !== undefined && callerBudgetCents !== undefined) {
      const own = this.#committedOf(dayStart, call.callerId);
      if (own + call.maxCents > callerBudgetCents) return { ok: false, limit: "caller", committedCents: own };
    }
    const info = this.#insertCall.run({
      ...call,
      day: dayStart,
      callerId: call.callerId ?? null,
      callerLabel: call.callerLabel ?? null,
    });
    this.#add(dayStart, call.callerId, heldCents("pending", 0, call.maxCents));
    return { ok: true, id: String(info.lastInsertRowid) };
  }

  /**
   * An open call (OPEN_STATES: pending, or unknown after a sweep while its owner lived) held its
   * most against its day; it now holds what its end holds: what it cost (billed), still its most
   * (unknown: it may have billed), or nothing (free, failed).
   */
  #finishIn(params: FinishParams): void {
    const row = this.#finishCall.get(params);
    if (row) this.#add(row.day, row.caller_id, heldCents(params.state, params.cents, row.max_cents) - row.max_cents);
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
