import fc from "fast-check";
import {
  COMMITTED_CENTS_SQL,
  OPEN_STATES,
  USAGE_SUMS_SQL,
  UsageSumsRow,
  committedCentsOf,
  heldCents,
  totalsOf,
} from "../../src/relay/store/committed-spend";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { CALL_STATES, CallState } from "../../src/relay/store/store";

/*
 * The committed spend is defined once (store/committed-spend.ts); the TypeScript that sums usage
 * totals, the running totals of the SQLite store and the SQL both stores run are derived from it,
 * and must say the same of any ledger.
 */

interface Row {
  state: CallState;
  cents: number;
  maxCents: number;
}

/** A ledger table with the columns the SQL reads, holding `rows`. */
function ledgerOf(rows: readonly Row[]) {
  const db = new (sqliteDriver())(":memory:");
  db.exec(
    "CREATE TABLE ledger (state TEXT NOT NULL, cents INTEGER NOT NULL, max_cents INTEGER NOT NULL, reports INTEGER NOT NULL DEFAULT 0, ai_functions INTEGER NOT NULL DEFAULT 0)",
  );
  const insert = db.prepare("INSERT INTO ledger (state, cents, max_cents) VALUES (?, ?, ?)");
  for (const r of rows) insert.run(r.state, r.cents, r.maxCents);
  return db;
}

const row: fc.Arbitrary<Row> = fc.record({
  state: fc.constantFrom(...CALL_STATES),
  cents: fc.integer({ min: 0, max: 500 }),
  maxCents: fc.integer({ min: 0, max: 500 }),
});

describe("the committed spend", () => {
  test("is what the service billed, and the most of every call in flight or of unknown outcome", () => {
    expect(CALL_STATES.map((state) => [state, heldCents(state, 7, 40)])).toEqual([
      ["pending", 40],
      ["billed", 7],
      ["free", 0],
      ["failed", 0],
      ["unknown", 40],
    ]);
    expect(committedCentsOf({ billedCents: 7, pendingCents: 40, unknownCents: 5 })).toBe(52);
    // The calls a finish settles, and a sweep moves between: those that hold their most.
    expect(OPEN_STATES).toEqual(["pending", "unknown"]);
  });

  test("summed by SQL, per row or as usage totals, equals the sum of what each call holds (200 ledgers)", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        const db = ledgerOf(rows);
        try {
          const held = rows.reduce((sum, r) => sum + heldCents(r.state, r.cents, r.maxCents), 0);
          const summed = db.prepare(`SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) AS c FROM ledger`).get() as {
            c: number;
          };
          const usage = totalsOf(db.prepare(`SELECT ${USAGE_SUMS_SQL} FROM ledger`).get() as UsageSumsRow);
          expect(summed.c).toBe(held);
          expect(committedCentsOf(usage)).toBe(held);
          expect(usage.calls).toBe(rows.length);
        } finally {
          db.close();
        }
      }),
      { numRuns: 200 },
    );
  });

  test("is the SQL Postgres's reservation functions were made with (a change needs a migration making new ones)", () => {
    expect(COMMITTED_CENTS_SQL).toBe(
      "CASE state WHEN 'billed' THEN cents WHEN 'pending' THEN max_cents WHEN 'unknown' THEN max_cents ELSE 0 END",
    );
  });
});
