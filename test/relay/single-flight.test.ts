import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { wrapMethod } from "../support/wrap-store";
import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

describe("identical requests in flight share one upstream call", () => {
  let t: TestRelay;
  beforeEach(async () => {
    // Each report takes 300 ms, so the calls below overlap.
    t = await startRelay({}, { sandbox: { timeScale: 0.015 } });
  });
  afterEach(() => t.close());

  test("8 identical concurrent calls → 1 upstream call, 1 bill, 8 identical analyses", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.post(BUY_PATH, buyBody())));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.json.data._id)).size).toBe(1);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, reports: 1, billedCents: 20 });
    // The one that started the call carries its cost; the seven that joined it paid nothing.
    const costs = answers.map((a) => a.json.relay.costUSD).sort();
    expect(costs).toEqual([0, 0, 0, 0, 0, 0, 0, 0.2]);
    expect(answers.filter((a) => a.json.relay.shared === true)).toHaveLength(7);
  });

  test("a refresh during an identical call in flight joins it rather than billing twice", async () => {
    const [a, b] = await Promise.all([
      t.post(BUY_PATH, buyBody()),
      t.post(BUY_PATH, buyBody(), { "cache-control": "no-cache" }),
    ]);
    expect(a.json.data._id).toBe(b.json.data._id);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("different requests in flight do not share", async () => {
    const answers = await Promise.all([0, 1, 2].map((n) => t.post(BUY_PATH, buyBody(n))));
    expect(new Set(answers.map((a) => a.json.data._id)).size).toBe(3);
    expect(t.sandboxStats().arrivals).toBe(3);
  });
});

describe("a refresh asked while the call in flight is finishing", () => {
  test("is not answered with that call's answer, fetched before it was asked: it is bought, once", async () => {
    // The first ledger row to be settled waits for the test: the call's answer is in and kept, its flight not over.
    let entered!: () => void;
    const settling = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-refresh-finishing-"));
    const store = new SqliteStore(path.join(dataDir, "relay.sqlite"));
    let first = true;
    wrapMethod(store.ledger, "finishCall", (finishCall) => async (...args) => {
      if (first) {
        first = false;
        entered();
        await gate;
      }
      return finishCall(...args);
    });
    const t = await startRelay({}, { dataDir, store });
    try {
      const plain = t.post(BUY_PATH, buyBody());
      await settling;
      const refresh = t.post(BUY_PATH, buyBody(), { "cache-control": "no-cache" });
      // Long enough for the refresh to reach the call still finishing, on any machine but a stalled one.
      await new Promise((r) => setTimeout(r, 300));
      release();
      const [p, r] = await Promise.all([plain, refresh]);
      expect([p.status, r.status]).toEqual([200, 200]);
      expect(r.json.data._id).not.toBe(p.json.data._id);
      expect(r.json.relay.cached).toBe(false);
      expect(t.sandboxStats()).toMatchObject({ arrivals: 2, reports: 2 });
    } finally {
      await t.close();
    }
  });

  test("asked again with its freshSince, it is not answered from the ledger with an analysis fetched before then", async () => {
    // Keeping an answer takes 50 ms: the call's ledger row is settled 50 ms after the answer was fetched.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-refresh-ledger-"));
    const store = new SqliteStore(path.join(dataDir, "relay.sqlite"));
    wrapMethod(store.cache, "put", (put) => async (...args) => {
      await new Promise((r) => setTimeout(r, 50));
      return put(...args);
    });
    const t = await startRelay({}, { dataDir, store });
    try {
      const first = await t.post(BUY_PATH, buyBody());
      const fetchedAt = Date.parse(first.json.relay.fetchedAt as string);
      const [row] = await t.relay.store.ledger.rows();
      expect(row?.finishedAt).toBeGreaterThanOrEqual(fetchedAt + 50);
      const freshSince = new Date(fetchedAt + 25).toISOString();
      const again = await t.post("/v1/batch", {
        items: [{ strategy: "buy", params: buyBody(), refresh: true, freshSince }],
      });
      const line = JSON.parse(again.text) as { status: number; body: { data: { _id: string } } };
      expect(line.status).toBe(200);
      expect(line.body.data._id).not.toBe(first.json.data._id);
      expect(t.sandboxStats()).toMatchObject({ arrivals: 2, reports: 2 });
    } finally {
      await t.close();
    }
  });
});
