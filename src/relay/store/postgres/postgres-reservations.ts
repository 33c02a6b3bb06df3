import { PostgresDb } from "./postgres-db";
import { DB_NOW_MS } from "./postgres-migrations";
import { OPEN_STATES, sqlStates } from "../committed-spend";
import { partError } from "../store-down";
import { CallEnd, CallStart, Reservation } from "../store";

/*
 * The Postgres ledger's writes for one call: the reservation before it is sent (the budget checks
 * and the pending row, atomically across replicas, in reserve_call_v2 of postgres-migrations.ts)
 * and its settlement after, and the settling of reservations whose answer was lost.
 */

export class PostgresReservations {
  readonly #db: PostgresDb;
  /** Reservations that failed, whose rows may exist all the same (see reserveCall). */
  readonly #unheard: CallStart[] = [];

  constructor(db: PostgresDb) {
    this.#db = db;
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
        `SELECT reserved_id, committed_cents, refused_by FROM ${this.#db.s}.reserve_call_v2($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
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
    await this.#db.query(
      `UPDATE ${this.#db.s}.ledger_v1 SET state = $2, status = $3, cents = $4, reports = $5, ai_functions = $6, analysis_id = $7, error_code = $8, finished_at = $9
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
        `UPDATE ${this.#db.s}.ledger_v1 SET state = 'failed', error_code = 'STR_STORE_UNAVAILABLE', finished_at = ${DB_NOW_MS}
         WHERE owner = $1 AND cache_key = $2 AND started_at = $3 AND state IN (${sqlStates(OPEN_STATES)})`,
        [call.owner, call.cacheKey, call.startedAt],
      );
      this.#unheard.shift();
    }
  }
}
