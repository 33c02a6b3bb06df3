import type Database from "better-sqlite3";
import { USAGE_SUMS_SQL, UsageSumsRow, totalsOf } from "../committed-spend";
import { CallerUsage } from "../store";

/*
 * The SQLite ledger's callers: each call's token id and label, and each caller's committed spend
 * by day (caller_spend_v1), kept in the same transactions as the relay's (spend_v2), so a token's
 * own budget is checked by reading one row, atomically with the reservation (sqlite-ledger.ts).
 */

/**
 * Adds the caller columns to a ledger_v2 written before callers were recorded, in place: its rows
 * keep their meaning and are booked to no caller. Under an IMMEDIATE transaction, so a second
 * process opening the same file waits and then finds the columns there.
 */
export function addCallerColumns(db: Database.Database): void {
  const missing = () =>
    !db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('ledger_v2')")
      .all()
      .some((c) => c.name === "caller_id");
  if (!missing()) return;
  db.transaction(() => {
    if (!missing()) return;
    db.exec("ALTER TABLE ledger_v2 ADD COLUMN caller_id TEXT; ALTER TABLE ledger_v2 ADD COLUMN caller_label TEXT;");
  }).immediate();
}

export class SqliteCallerSpend {
  readonly #committed;
  readonly #add;
  readonly #usage;

  constructor(db: Database.Database) {
    db.exec(`
      -- A caller's billed cents plus the most of its calls pending or unknown, by the day they count against.
      CREATE TABLE IF NOT EXISTS caller_spend_v1 (
        day INTEGER NOT NULL, caller_id TEXT NOT NULL, committed_cents INTEGER NOT NULL, PRIMARY KEY (day, caller_id));
    `);
    this.#committed = db.prepare<[number, string], { committed_cents: number }>(
      "SELECT committed_cents FROM caller_spend_v1 WHERE day = ? AND caller_id = ?",
    );
    this.#add = db.prepare(
      "INSERT INTO caller_spend_v1 (day, caller_id, committed_cents) VALUES (@day, @callerId, @cents) " +
        "ON CONFLICT (day, caller_id) DO UPDATE SET committed_cents = committed_cents + excluded.committed_cents",
    );
    this.#usage = db.prepare<[number], UsageSumsRow & { caller_id: string | null; caller_label: string | null }>(
      `SELECT caller_id, MAX(caller_label) AS caller_label, ${USAGE_SUMS_SQL} FROM ledger_v2 WHERE started_at >= ? GROUP BY caller_id`,
    );
  }

  committed(day: number, callerId: string): number {
    return this.#committed.get(day, callerId)?.committed_cents ?? 0;
  }

  /** Within the caller's transaction: the reservation's, or a finished call's change of what it holds. */
  add(day: number, callerId: string | null | undefined, cents: number): void {
    if (callerId && cents !== 0) this.#add.run({ day, callerId, cents });
  }

  usage(since: number): CallerUsage[] {
    return this.#usage
      .all(since)
      .map((r) => ({ ...totalsOf(r), callerId: r.caller_id ?? undefined, callerLabel: r.caller_label ?? undefined }));
  }
}
