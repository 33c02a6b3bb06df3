import type Database from "better-sqlite3";
import { Operation } from "../../../contract";
import { SqliteCallerSpend } from "./sqlite-caller-spend";
import { OPEN_STATES, USAGE_SUMS_SQL, UsageSumsRow, heldCents, sqlStates, totalsOf } from "../committed-spend";
import { CallEnd, CallStart, CallState, CallerUsage, LastCall, LedgerRow, Reservation, UsageTotals } from "../store";

/*
 * The SQLite store's ledger: a row for every call sent to the service (ledger_v2), and each day's
 * committed spend (spend_v2) and each caller's (sqlite-caller-spend.ts), kept in the same
 * transactions as the rows. better-sqlite3 is synchronous, so each method is atomic within the
 * process; the writes use IMMEDIATE transactions so two processes on one file cannot both pass the
 * budget.
 */

export class SqliteLedger {
  readonly #callers: SqliteCallerSpend;
  readonly #committed;
  readonly #addCommitted;
  readonly #insertCall;
  readonly #finishCall;
  readonly #lastCall;
  readonly #usage;
  readonly #rows;
  readonly #reserve;
  readonly #finish;

  constructor(db: Database.Database) {
    this.#callers = new SqliteCallerSpend(db);
    this.#committed = db.prepare<[number], { committed_cents: number }>(
      "SELECT committed_cents FROM spend_v2 WHERE day = ?",
    );
    this.#addCommitted = db.prepare(
      "INSERT INTO spend_v2 (day, committed_cents) VALUES (@day, @cents) ON CONFLICT (day) DO UPDATE SET committed_cents = committed_cents + excluded.committed_cents",
    );
    this.#insertCall = db.prepare(
      "INSERT INTO ledger_v2 (op, cache_key, state, max_cents, owner, started_at, day, caller_id, caller_label) VALUES (@op, @cacheKey, 'pending', @maxCents, @owner, @startedAt, @day, @callerId, @callerLabel)",
    );
    this.#finishCall = db.prepare<FinishParams, { day: number; max_cents: number; caller_id: string | null }>(
      `UPDATE ledger_v2 SET state = @state, status = @status, cents = @cents, reports = @reports, ai_functions = @aiFunctions, analysis_id = @analysisId, error_code = @errorCode, finished_at = @finishedAt WHERE id = @id AND state IN (${sqlStates(OPEN_STATES)}) RETURNING day, max_cents, caller_id`,
    );
    this.#lastCall = db.prepare<
      [string],
      {
        state: CallState;
        op: string;
        analysis_id: string | null;
        finished_at: number | null;
        error_code: string | null;
      }
    >(
      "SELECT state, op, analysis_id, finished_at, error_code FROM ledger_v2 WHERE cache_key = ? ORDER BY id DESC LIMIT 1",
    );
    this.#usage = db.prepare<[number], UsageSumsRow>(`SELECT ${USAGE_SUMS_SQL} FROM ledger_v2 WHERE started_at >= ?`);
    this.#rows = db.prepare<[], LedgerDbRow>("SELECT * FROM ledger_v2 ORDER BY id");
    this.#reserve = db.transaction(this.#reserveIn.bind(this));
    this.#finish = db.transaction(this.#finishIn.bind(this));
  }

  reserveCall(call: CallStart, budgetCents: number, dayStart: number, callerBudgetCents?: number): Reservation {
    return this.#reserve.immediate(call, budgetCents, dayStart, callerBudgetCents);
  }

  committedCents(dayStart: number): number {
    return this.#committed.get(dayStart)?.committed_cents ?? 0;
  }

  callerCommittedCents(dayStart: number, callerId: string): number {
    return this.#callers.committed(dayStart, callerId);
  }

  finishCall(id: string, end: CallEnd): void {
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

  lastCall(cacheKey: string): LastCall | undefined {
    const r = this.#lastCall.get(cacheKey);
    return (
      r && {
        state: r.state,
        op: r.op as Operation,
        analysisId: r.analysis_id ?? undefined,
        finishedAt: r.finished_at ?? undefined,
        errorCode: r.error_code ?? undefined,
      }
    );
  }

  usage(since: number): UsageTotals {
    return totalsOf(this.#usage.get(since) as UsageSumsRow);
  }

  usageByCaller(since: number): CallerUsage[] {
    return this.#callers.usage(since);
  }

  ledger(): LedgerRow[] {
    return this.#rows.all().map((r) => ({
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

  /** The budget checks and the pending row, in one transaction: the relay's, then the caller's own. */
  #reserveIn(call: CallStart, budgetCents: number, dayStart: number, callerBudgetCents?: number): Reservation {
    const committed = this.committedCents(dayStart);
    if (committed + call.maxCents > budgetCents) return { ok: false, limit: "relay", committedCents: committed };
    if (call.callerId !== undefined && callerBudgetCents !== undefined) {
      const own = this.#callers.committed(dayStart, call.callerId);
      if (own + call.maxCents > callerBudgetCents) return { ok: false, limit: "caller", committedCents: own };
    }
    const info = this.#insertCall.run({
      ...call,
      day: dayStart,
      callerId: call.callerId ?? null,
      callerLabel: call.callerLabel ?? null,
    });
    const held = heldCents("pending", 0, call.maxCents);
    this.#addCommitted.run({ day: dayStart, cents: held });
    this.#callers.add(dayStart, call.callerId, held);
    return { ok: true, id: String(info.lastInsertRowid) };
  }

  /**
   * A pending call held its most against its day, and so did one a sweep marked unknown while its
   * owner lived (sqlite-liveness.ts); it now holds what it cost (billed), still its most (unknown:
   * it may have billed), or nothing (free, failed).
   */
  #finishIn(params: FinishParams): void {
    const row = this.#finishCall.get(params);
    if (!row) return;
    // The row was open (OPEN_STATES), which holds its most.
    const holds = heldCents(params.state, params.cents, row.max_cents);
    if (holds === row.max_cents) return;
    this.#addCommitted.run({ day: row.day, cents: holds - row.max_cents });
    this.#callers.add(row.day, row.caller_id, holds - row.max_cents);
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
