import { LivenessStore } from "../store";
import { PostgresDb } from "./postgres-db";
import type { PostgresLedger } from "./postgres-ledger";
import { DB_NOW_MS, STEADY_GAP_BEATS } from "./postgres-migrations";

/*
 * The replicas' heartbeats in Postgres (replicas_v2) and the sweep that settles the calls of a
 * replica that stopped beating. Both are judged on the database's clock, so replicas whose clocks
 * disagree still agree on who is alive.
 */

export class PostgresLiveness implements LivenessStore {
  readonly #db: PostgresDb;
  readonly #ledger: Pick<PostgresLedger, "settleUnheard">;

  constructor(db: PostgresDb, ledger: Pick<PostgresLedger, "settleUnheard">) {
    this.#db = db;
    this.#ledger = ledger;
  }

  /**
   * A beat that comes more than STEADY_GAP_BEATS intervals after the last one (beats were missed:
   * this replica stalled, or could not reach the database) starts a new steady run, which
   * settleOrphans asks of a sweeper. Each beat also settles the reservations this replica never
   * heard back about (the ledger's settleUnheard).
   */
  async heartbeat(owner: string, intervalMs: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#db.s}.replicas_v2 AS r (owner, heartbeat_at, beating_since) VALUES ($1, ${DB_NOW_MS}, ${DB_NOW_MS})
       ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,
         beating_since = CASE WHEN r.heartbeat_at >= excluded.heartbeat_at - $2 THEN COALESCE(r.beating_since, excluded.heartbeat_at) ELSE excluded.heartbeat_at END`,
      [owner, Math.round(intervalMs * STEADY_GAP_BEATS)],
    );
    await this.#ledger.settleUnheard();
  }

  /**
   * Only by a sweeper whose own beats have been steady for the whole stale window: Postgres
   * answered it throughout, so a replica silent all that time was not kept away by an outage that
   * also kept the sweeper away (after which every heartbeat looks stale at once). A replica cut off
   * from Postgres alone still looks dead; its own finish settles its calls again (finishCall).
   */
  async settleOrphans(sweeper: string, staleAfterMs: number): Promise<number> {
    const s = this.#db.s;
    const result = await this.#db.query(
      `WITH clock AS (SELECT ${DB_NOW_MS} AS now)
       UPDATE ${s}.ledger_v2 SET state = 'unknown', error_code = 'STR_OUTCOME_UNKNOWN', finished_at = (SELECT now FROM clock)
       WHERE state = 'pending'
         AND owner NOT IN (SELECT owner FROM ${s}.replicas_v2, clock WHERE heartbeat_at >= clock.now - $2)
         AND EXISTS (SELECT 1 FROM ${s}.replicas_v2, clock
           WHERE owner = $1 AND beating_since <= clock.now - $2 AND heartbeat_at >= clock.now - $2 * ${STEADY_GAP_BEATS} / 3)`,
      [sweeper, staleAfterMs],
    );
    return result.rowCount ?? 0;
  }
}
