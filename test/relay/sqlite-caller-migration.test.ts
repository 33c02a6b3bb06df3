import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";

// The driver this Node runs (better-sqlite3 13, or 12 on Node 20).
const Database = sqliteDriver();

const DAY = Date.UTC(2026, 10, 22);

/** The ledger as the relay wrote it before calls were booked to callers (ledger_v2, spend_v2). */
function oldDatabase(file: string): void {
  const db = new Database(file);
  db.exec(`
    CREATE TABLE ledger_v2 (
      id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, cache_key TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending','billed','free','failed','unknown')),
      max_cents INTEGER NOT NULL, owner TEXT NOT NULL, started_at INTEGER NOT NULL, day INTEGER NOT NULL,
      status INTEGER, cents INTEGER NOT NULL DEFAULT 0, reports INTEGER NOT NULL DEFAULT 0,
      ai_functions INTEGER NOT NULL DEFAULT 0, analysis_id TEXT, error_code TEXT, finished_at INTEGER);
    CREATE INDEX ledger_v2_key ON ledger_v2 (cache_key, id);
    CREATE TABLE spend_v2 (day INTEGER PRIMARY KEY, committed_cents INTEGER NOT NULL);
    INSERT INTO ledger_v2 (op, cache_key, state, max_cents, owner, started_at, day, status, cents, reports, finished_at)
      VALUES ('buy', 'old-key', 'billed', 20, 'old-relay', ${DAY + 1}, ${DAY}, 200, 20, 1, ${DAY + 2});
    INSERT INTO spend_v2 (day, committed_cents) VALUES (${DAY}, 20);
  `);
  db.close();
}

describe("a SQLite store written before callers were recorded", () => {
  test("is migrated in place: old rows kept and booked to no caller, new rows booked to theirs, own budgets checked", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-caller-migration-"));
    const file = path.join(dir, "relay.sqlite");
    oldDatabase(file);
    // The first store on the file adds the columns; a second one on it finds them there.
    const [store, second] = [new SqliteStore(file), new SqliteStore(file)];
    try {
      const [old] = await store.ledger.rows();
      expect(old).toMatchObject({ cacheKey: "old-key", state: "billed", cents: 20, callerId: undefined });
      expect(await store.ledger.committedCents(DAY)).toBe(20);

      const call = (n: number, callerId: string) => ({
        op: "buy" as const,
        cacheKey: `k${n}`,
        maxCents: 20,
        owner: "new-relay",
        startedAt: DAY + 10 + n,
        callerId,
        callerLabel: callerId === "id-alice" ? "alice" : undefined,
      });
      expect(await store.ledger.reserveCall(call(1, "id-alice"), 1000, DAY, 30)).toMatchObject({ ok: true });
      expect(await second.ledger.reserveCall(call(2, "id-alice"), 1000, DAY, 30)).toEqual({
        ok: false,
        limit: "caller",
        committedCents: 20,
      });
      expect(await second.ledger.reserveCall(call(3, "id-bob"), 1000, DAY)).toMatchObject({ ok: true });

      const byCaller = await store.ledger.usageByCaller(DAY);
      const of = (id: string | undefined) => byCaller.find((c) => c.callerId === id);
      expect(of(undefined)).toMatchObject({ calls: 1, billedCents: 20, callerLabel: undefined });
      expect(of("id-alice")).toMatchObject({ calls: 1, pendingCents: 20, callerLabel: "alice" });
      expect(of("id-bob")).toMatchObject({ calls: 1, pendingCents: 20 });
      expect(await store.ledger.committedCents(DAY)).toBe(60);
    } finally {
      await store.close();
      await second.close();
    }
    // Opened again, nothing is migrated twice.
    const again = new SqliteStore(file);
    try {
      expect((await again.ledger.rows()).map((r) => r.callerId)).toEqual([undefined, "id-alice", "id-bob"]);
    } finally {
      await again.close();
    }
  });
});
