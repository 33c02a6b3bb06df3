import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { OLD_SQLITE_TABLES } from "../support/old-schemas";

/*
 * A SQLite file the relay wrote before its store was one interface of parts (tables as they were,
 * written out in old-schemas.ts) opens with everything it held, and goes on from it.
 */

const DAY = Date.UTC(2030, 4, 7);

function oldFile(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "str-old-sqlite-")), "relay.sqlite");
  const db = new (sqliteDriver())(file);
  db.exec(OLD_SQLITE_TABLES);
  db.exec(`
    INSERT INTO ledger_v2 (op, cache_key, state, max_cents, owner, started_at, day, status, cents, reports, analysis_id, finished_at, caller_id, caller_label)
      VALUES ('buy', 'k-billed', 'billed', 40, 'old', ${DAY + 1}, ${DAY}, 200, 20, 1, 'an-1', ${DAY + 5}, 'id-alice', 'alice'),
             ('buy', 'k-pending', 'pending', 40, 'old', ${DAY + 2}, ${DAY}, NULL, 0, 0, NULL, NULL, 'id-alice', 'alice'),
             ('buy', 'k-unknown', 'unknown', 30, 'old', ${DAY + 3}, ${DAY}, NULL, 0, 0, NULL, ${DAY + 9}, NULL, NULL);
    INSERT INTO spend_v2 VALUES (${DAY}, 90);
    INSERT INTO caller_spend_v1 VALUES (${DAY}, 'id-alice', 60);
    INSERT INTO cache_v2 VALUES ('k-billed', 'buy', '{"success":true,"data":{"_id":"an-1","comparables":[]},"notes":[]}', 'an-1', ${DAY + 5}, 20, 'call-1', '[{"id":1}]');
    INSERT INTO analyses_v1 VALUES ('an-1', 'buy', 'buy', '{"_id":"an-1","score":7}', '[]', ${DAY + 5});
    INSERT INTO jobs_v1 VALUES ('job-1', 'id-alice', '[{},{}]', '{}', 2, 'running', 'old', 0, ${DAY}, NULL);
    INSERT INTO job_results_v1 VALUES ('job-1', 1, '{"ok":true}');
    INSERT INTO secrets_v1 VALUES ('caller-id', 'the-old-secret');
  `);
  db.close();
  return file;
}

describe("a SQLite file written before the store was folded", () => {
  test("opens with its ledger, running totals, cache, analyses, jobs and secret, and goes on from them", async () => {
    const store = new SqliteStore(oldFile());
    try {
      expect((await store.ledger.rows()).map((r) => [r.id, r.cacheKey, r.state, r.cents, r.day, r.callerId])).toEqual([
        ["1", "k-billed", "billed", 20, DAY, "id-alice"],
        ["2", "k-pending", "pending", 0, DAY, "id-alice"],
        ["3", "k-unknown", "unknown", 0, DAY, undefined],
      ]);
      expect(await store.ledger.committedCents(DAY)).toBe(90);
      expect(await store.ledger.committedCents(DAY, "id-alice")).toBe(60);
      expect(await store.ledger.usage(DAY)).toMatchObject({
        calls: 3,
        billedCents: 20,
        pendingCents: 40,
        unknownCents: 30,
      });
      expect(await store.cache.get("k-billed")).toMatchObject({
        callId: "call-1",
        envelope: { data: { comparables: [{ id: 1 }] } },
      });
      expect(await store.analyses.get("an-1")).toMatchObject({ strategy: "buy", data: { score: 7 } });
      expect(await store.jobs.get("job-1", "id-alice")).toMatchObject({ status: "running", total: 2, done: 1 });
      expect(await store.keptSecret("caller-id", "a-new-candidate")).toBe("the-old-secret");
      // The pending call, finished, frees what it held; a new call is the next row and counts.
      await store.ledger.finishCall("2", {
        state: "failed",
        status: 503,
        cents: 0,
        reports: 0,
        aiFunctions: 0,
        analysisId: undefined,
        errorCode: undefined,
        finishedAt: DAY + 10,
      });
      expect(await store.ledger.committedCents(DAY, "id-alice")).toBe(20);
      const next = await store.ledger.reserveCall(
        { op: "buy", cacheKey: "k-new", maxCents: 50, owner: "new", startedAt: DAY + 11 },
        100,
        DAY,
      );
      expect(next).toEqual({ ok: true, id: "4" });
      expect(await store.ledger.committedCents(DAY)).toBe(100);
    } finally {
      await store.close();
    }
  });
});
