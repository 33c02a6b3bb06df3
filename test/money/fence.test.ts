import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { validateRequest } from "../../src/contract";
import { cacheKeyOf } from "../../src/relay/gateway/answer-cache";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { BUY_PATH, buyBody, startRelay } from "../support/relay";

/*
 * The fence before a send: a replica waiting for a send slot proves, right before sending, that it
 * still holds the request's lock and that no answer is stored meanwhile. Here another replica (a
 * second connection to the same store) takes the lock over while the first waits in a long queue,
 * as after a pause past its lease, and stores the answer it bought: the first sends nothing and
 * answers with that answer. Before: it sent too, and the report was bought twice.
 */
describe("the fence before a send", () => {
  test("a replica that lost its lock while queued sends nothing and takes the other sender's answer", async () => {
    // One send every two seconds: the third item waits some four seconds for its slot.
    const t = await startRelay({ RELAY_UPSTREAM_RPS: "0.5" });
    try {
      const third = buyBody(3);
      const request = validateRequest("buy", third);
      if (!request.ok) throw new Error("bad test body");
      const key = cacheKeyOf("buy", request.value);
      const running = t.post("/v1/batch", {
        items: [1, 2, 3].map((n) => ({ strategy: "buy", params: buyBody(n) })),
      });
      // The third item holds its lock and waits for a slot; another replica takes the lock over.
      const db = new (sqliteDriver())(path.join(t.dataDir, "relay.sqlite"));
      db.pragma("busy_timeout = 5000");
      for (let i = 0; i < 50 && !db.prepare("SELECT 1 FROM locks_v1 WHERE key = ?").get(key); i++) await sleep(20);
      db.prepare("UPDATE locks_v1 SET owner = 'other-replica', until = ? WHERE key = ?").run(Date.now() + 60_000, key);
      // ... buys the report itself (a request through this very relay stands in for its answer) ...
      const other = await startRelay({}, {});
      const bought = await other.post(BUY_PATH, third);
      expect(bought.status).toBe(200);
      await other.close();
      const entry = { ...bought.json };
      delete entry.relay;
      db.prepare(
        "INSERT INTO cache_v2 (key, op, envelope, analysis_id, fetched_at, cost_cents, call_id, comparables) VALUES (?, 'buy', ?, ?, ?, 20, 'other-call', NULL)",
      ).run(key, JSON.stringify({ ...entry, extra: {}, notes: [] }), bought.json.data._id, Date.now());
      // ... and lets it go.
      db.prepare("DELETE FROM locks_v1 WHERE key = ?").run(key);
      db.close();

      const lines = (await running).text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { index: number; body: { data?: { _id: string }; relay?: { cached: boolean } } });
      const answer = lines.find((l) => l.index === 2);
      expect(answer?.body.data?._id).toBe(bought.json.data._id);
      expect(answer?.body.relay?.cached).toBe(true);
      // This replica's service billed the first two only.
      expect(t.sandboxStats().reports).toBe(2);
      const ledger = await t.relay.store.ledger.rows();
      expect(ledger.filter((row) => row.cacheKey === key)).toHaveLength(0);
    } finally {
      await t.close();
    }
  }, 60_000);
});
