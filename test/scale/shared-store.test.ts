import { Client, Pool } from "pg";
import { PostgresDb } from "../../src/relay/store/postgres/postgres-db";
import { PostgresLedger } from "../../src/relay/store/postgres/postgres-ledger";
import { PostgresLiveness } from "../../src/relay/store/postgres/postgres-liveness";
import { SharedStore } from "../../src/relay/store/shared-store";
import { STORE_TIMEOUT_MS } from "../../src/relay/store/shared-clients";
import { CallEnd, CallStart } from "../../src/relay/store/store";
import {
  SharedUrls,
  closedPort,
  describeShared,
  dropNamespace,
  openTestStore,
  testNamespace,
  withPort,
} from "../support/scale";

const DAY = Date.UTC(2030, 0, 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (n: number, extra: Partial<CallStart> = {}): CallStart => ({
  op: "buy",
  cacheKey: `key-${n}`,
  maxCents: 20,
  owner: "replica-a",
  startedAt: DAY + n,
  ...extra,
});
const end = (state: CallEnd["state"], cents = 0, extra: Partial<CallEnd> = {}): CallEnd => ({
  state,
  status: state === "billed" ? 200 : undefined,
  cents,
  reports: state === "billed" ? 1 : 0,
  aiFunctions: 0,
  analysisId: undefined,
  errorCode: undefined,
  finishedAt: DAY + 1000,
  ...extra,
});

describeShared("the shared store (Redis + Postgres) behaves as the SQLite store does", (urls: SharedUrls) => {
  let ns: string;
  const opened: SharedStore[] = [];
  const open = async (lockLeaseMs = 3000, u: SharedUrls = urls) => {
    const s = await openTestStore(u, ns, lockLeaseMs);
    opened.push(s);
    return s;
  };
  beforeEach(() => {
    ns = testNamespace("store");
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await dropNamespace(urls, ns);
  });

  test("replicas starting together migrate once, into versioned tables of the namespace's schema", async () => {
    await Promise.all([open(), open(), open()]);
    const pg = new Client({ connectionString: urls.databaseUrl });
    await pg.connect();
    try {
      const tables = await pg.query<{ table_name: string; table_type: string }>(
        "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [ns],
      );
      expect(tables.rows.map((r) => [r.table_name, r.table_type])).toEqual([
        ["analyses_v1", "BASE TABLE"],
        ["job_results_v1", "BASE TABLE"],
        ["jobs_v1", "BASE TABLE"],
        // The old names, for replicas one version back (store-tables.test).
        ["ledger_v1", "VIEW"],
        ["ledger_v2", "BASE TABLE"],
        ["migrations", "BASE TABLE"],
        ["replicas_v1", "VIEW"],
        ["replicas_v2", "BASE TABLE"],
        ["secrets_v1", "BASE TABLE"],
      ]);
      expect((await pg.query(`SELECT version FROM "${ns}".migrations ORDER BY version`)).rows).toEqual(
        [1, 2, 3, 4, 5, 6].map((version) => ({ version })),
      );
    } finally {
      await pg.end();
    }
  });

  test("cached answers round-trip through Redis under the namespace's prefix", async () => {
    const store = await open();
    const entry = {
      key: "abc",
      op: "buy" as const,
      envelope: { success: true, data: undefined, warnings: ["w"], extra: { x: 1 }, notes: [] },
      analysisId: "id-1",
      fetchedAt: DAY,
      costCents: 20,
    };
    expect(await store.cache.get("abc")).toBeUndefined();
    await store.cache.put(entry);
    expect(await store.cache.get("abc")).toEqual(entry);
    expect(await store.redis.exists(`${ns}:cache_v2:abc`)).toBe(1);
  });

  test("a cached answer's comparables are kept apart in Redis: a read without them leaves them unread", async () => {
    const store = await open();
    const comparables = [{ title: "Comp 1" }, { title: "Comp 2" }];
    const data = { _id: "a1", revenue: { p50: 1 }, comparables, yearOneCashFlowUSD: 5 } as never;
    const entry = {
      key: "k",
      op: "buy" as const,
      envelope: { success: true, data, warnings: ["w"], extra: {}, notes: [] },
      analysisId: "a1",
      fetchedAt: DAY,
      costCents: 20,
    };
    await store.cache.put(entry);
    expect(await store.cache.get("k")).toEqual(entry);
    const without = await store.cache.get("k", { comparables: false });
    expect(without?.envelope.data).toEqual({ _id: "a1", revenue: { p50: 1 }, comparables: [], yearOneCashFlowUSD: 5 });
    expect(Object.keys(without?.envelope.data ?? {})).toEqual(["_id", "revenue", "comparables", "yearOneCashFlowUSD"]);
    expect(await store.redis.hget(`${ns}:cache_v2:k`, "entry")).not.toMatch(/Comp/);
    // A newer answer without data leaves no comparables of the older one behind.
    await store.cache.put({ ...entry, envelope: { success: false, extra: {}, notes: [] } });
    expect(await store.redis.hexists(`${ns}:cache_v2:k`, "comparables")).toBe(0);
  });

  test("an answer a replica one version back cached (cache_v1) is moved to cache_v2 when first asked for", async () => {
    const store = await open();
    const data = { _id: "a2", revenue: { p50: 1 }, comparables: [{ title: "Comp 1" }] } as never;
    const old = {
      key: "k1",
      op: "buy" as const,
      envelope: { success: true, data, warnings: [], extra: {}, notes: [] },
      analysisId: "a2",
      fetchedAt: DAY,
      costCents: 20,
    };
    await store.redis.set(`${ns}:cache_v1:k1`, JSON.stringify(old));
    expect(await store.cache.get("k1", { comparables: false })).toEqual(old);
    expect(await store.redis.exists(`${ns}:cache_v1:k1`)).toBe(0);
    expect(await store.cache.get("k1")).toEqual(old);
    expect(await store.cache.get("k1", { comparables: false })).toEqual({
      ...old,
      envelope: { ...old.envelope, data: { _id: "a2", revenue: { p50: 1 }, comparables: [] } },
    });
  });

  test("an analysis keeps the strategy it was created with when an enhance updates it", async () => {
    const store = await open();
    const data = { _id: "a1" } as never;
    await store.analyses.put({ id: "a1", op: "buy", strategy: "buy", data, warnings: [], updatedAt: DAY });
    await store.analyses.put({
      id: "a1",
      op: "enhance",
      strategy: undefined,
      data,
      warnings: [{ message: "w" } as never],
      updatedAt: DAY + 5,
    });
    expect(await store.analyses.get("a1")).toMatchObject({
      id: "a1",
      op: "enhance",
      strategy: "buy",
      updatedAt: DAY + 5,
      warnings: [{ message: "w" }],
    });
    expect(await store.analyses.get("nope")).toBeUndefined();
  });

  test("40 concurrent reservations through two replicas cannot pass the budget together", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, n) => (n % 2 ? a : b).ledger.reserveCall(call(n), 200, DAY)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    for (const r of results) if (!r.ok) expect(r.committedCents).toBeGreaterThan(180);
    expect(await a.ledger.usage(DAY)).toMatchObject({ calls: 10, pendingCents: 200 });
  });

  test("usage adds billed, unknown and pending since a time; free and failed calls cost nothing", async () => {
    const store = await open();
    const ids = [];
    for (let n = 0; n < 5; n++) {
      const r = await store.ledger.reserveCall(call(n, { maxCents: 40 }), 10_000, DAY);
      if (!r.ok) throw new Error("refused");
      ids.push(r.id);
    }
    await store.ledger.finishCall(ids[0] as string, end("billed", 30, { reports: 1, aiFunctions: 1 }));
    await store.ledger.finishCall(ids[1] as string, end("free"));
    await store.ledger.finishCall(ids[2] as string, end("failed"));
    await store.ledger.finishCall(ids[3] as string, end("unknown"));
    expect(await store.ledger.usage(DAY)).toEqual({
      calls: 5,
      reports: 1,
      aiFunctions: 1,
      billedCents: 30,
      unknownCents: 40,
      pendingCents: 40,
    });
    expect(await store.ledger.usage(DAY + 3)).toEqual({
      calls: 2,
      reports: 0,
      aiFunctions: 0,
      billedCents: 0,
      unknownCents: 40,
      pendingCents: 40,
    });
    // The budget counts the same: 30 + 40 + 40 committed, so 40 more does not fit in 140.
    expect(await store.ledger.reserveCall(call(9, { maxCents: 40 }), 140, DAY)).toEqual({
      ok: false,
      limit: "relay",
      committedCents: 110,
    });
    const ledger = await store.ledger.rows();
    expect(ledger.map((r) => r.state)).toEqual(["billed", "free", "failed", "unknown", "pending"]);
    expect(ledger[0]).toMatchObject({
      id: ids[0],
      op: "buy",
      cacheKey: "key-0",
      cents: 30,
      maxCents: 40,
      owner: "replica-a",
      startedAt: DAY,
      status: 200,
      finishedAt: DAY + 1000,
    });
  });

  test("the latest call decides a request's state, and a finished call is not finished again", async () => {
    const store = await open();
    expect((await store.ledger.lastCall("key-7"))?.state).toBeUndefined();
    const first = await store.ledger.reserveCall(call(7), 1000, DAY);
    if (!first.ok) throw new Error("refused");
    expect((await store.ledger.lastCall("key-7"))?.state).toBe("pending");
    await store.ledger.finishCall(first.id, end("failed"));
    expect((await store.ledger.lastCall("key-7"))?.state).toBe("failed");
    // Finishing it again (the same end written twice, its first answer lost) changes nothing.
    await store.ledger.finishCall(first.id, end("billed", 20));
    expect((await store.ledger.lastCall("key-7"))?.state).toBe("failed");
    const second = await store.ledger.reserveCall(call(7), 1000, DAY);
    if (!second.ok) throw new Error("refused");
    await store.ledger.finishCall(second.id, end("billed", 20));
    expect((await store.ledger.lastCall("key-7"))?.state).toBe("billed");
    // A billed answer the relay could not use: its code and sample come back with the last call.
    const third = await store.ledger.reserveCall(call(7), 1000, DAY);
    if (!third.ok) throw new Error("refused");
    await store.ledger.finishCall(third.id, end("billed", 20, { errorCode: 'STR_UPSTREAM_UNUSABLE {"success":true}' }));
    expect(await store.ledger.lastCall("key-7")).toMatchObject({
      state: "billed",
      errorCode: 'STR_UPSTREAM_UNUSABLE {"success":true}',
    });
  });

  /** Beats `owner` for `ms`, steadily for an interval of `intervalMs` (twice as often, so a busy machine's delays do not break the run). */
  const beatFor = async (store: SharedStore, owner: string, intervalMs: number, ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until;) {
      await store.liveness.heartbeat(owner, intervalMs);
      await sleep(intervalMs / 2);
    }
    await store.liveness.heartbeat(owner, intervalMs);
  };

  test("pending calls of a replica that stopped heartbeating become unknown; a live replica's stay pending", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.liveness.heartbeat("dead", 200);
    await a.ledger.reserveCall(call(1, { owner: "dead" }), 1000, DAY);
    await b.ledger.reserveCall(call(2, { owner: "alive" }), 1000, DAY);
    // The other replica, beating steadily, sees them and settles the dead one's.
    await beatFor(b, "alive", 200, 800);
    expect(await b.liveness.settleOrphans("alive", 600)).toBe(1);
    expect((await a.ledger.rows()).map((r) => [r.owner, r.state, r.errorCode])).toEqual([
      ["dead", "unknown", "STR_OUTCOME_UNKNOWN"],
      ["alive", "pending", undefined],
    ]);
    expect(await a.liveness.settleOrphans("alive", 600)).toBe(0);
  });

  test("liveness is judged on Postgres's clock: a sweeper whose clock is 45 s ahead sweeps no live replica", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.ledger.reserveCall(call(1, { owner: "on-time" }), 1000, DAY);
    const realNow = Date.now;
    const clock = jest.spyOn(Date, "now").mockImplementation(() => realNow() + 45_000);
    try {
      await Promise.all([beatFor(a, "on-time", 200, 800), beatFor(b, "ahead", 200, 800)]);
      expect(await b.liveness.settleOrphans("ahead", 600)).toBe(0);
      expect(await a.liveness.settleOrphans("on-time", 600)).toBe(0);
    } finally {
      clock.mockRestore();
    }
    expect((await a.ledger.rows()).map((r) => r.state)).toEqual(["pending"]);
  });

  test("after Postgres was away for everyone, a sweeper first beats steadily for the stale window, so a replica that beats again is not written off", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await Promise.all([beatFor(a, "first-back", 200, 800), beatFor(b, "second-back", 200, 800)]);
    await b.ledger.reserveCall(call(1, { owner: "second-back" }), 1000, DAY);
    // No one beats for longer than the stale window (the outage); "first-back" beats first after it.
    await sleep(1000);
    await a.liveness.heartbeat("first-back", 200);
    expect(await a.liveness.settleOrphans("first-back", 600)).toBe(0);
    await sleep(100);
    await a.liveness.heartbeat("first-back", 200);
    expect(await a.liveness.settleOrphans("first-back", 600)).toBe(0);
    expect((await b.ledger.rows()).map((r) => r.state)).toEqual(["pending"]);
    // A replica that stays silent through the sweeper's steady run is written off.
    await beatFor(a, "first-back", 200, 800);
    expect(await a.liveness.settleOrphans("first-back", 600)).toBe(1);
  });

  test("a call swept as unknown is settled by its living owner's finish: billed, and usage follows", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const r = await a.ledger.reserveCall(call(1, { owner: "cut-off", maxCents: 40 }), 1000, DAY);
    if (!r.ok) throw new Error("refused");
    // "cut-off" could not reach Postgres (its calls still ran); the other replica beat throughout.
    await beatFor(b, "sweeper", 200, 800);
    expect(await b.liveness.settleOrphans("sweeper", 600)).toBe(1);
    expect(await b.ledger.usage(DAY)).toMatchObject({ billedCents: 0, unknownCents: 40 });
    expect((await b.ledger.lastCall("key-1"))?.state).toBe("unknown");

    await a.ledger.finishCall(r.id, end("billed", 20, { analysisId: "an-1" }));
    expect((await b.ledger.rows())[0]).toMatchObject({
      state: "billed",
      cents: 20,
      reports: 1,
      status: 200,
      analysisId: "an-1",
      errorCode: undefined,
      finishedAt: DAY + 1000,
    });
    expect(await b.ledger.usage(DAY)).toEqual({
      calls: 1,
      reports: 1,
      aiFunctions: 0,
      billedCents: 20,
      unknownCents: 0,
      pendingCents: 0,
    });
    expect(await b.ledger.committedCents(DAY)).toBe(20);
    expect(await b.ledger.lastCall("key-1")).toMatchObject({ state: "billed", analysisId: "an-1" });
  });

  test("a reservation written though its answer was lost (the connection dropped) is settled as failed at the next heartbeat", async () => {
    const pool = new Pool({ connectionString: urls.databaseUrl });
    const db = new PostgresDb(pool, ns);
    const ledger = new PostgresLedger(db);
    const liveness = new PostgresLiveness(db, ledger);
    try {
      const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
      // The reservation runs and commits, then the answer never arrives.
      jest.spyOn(pool, "query").mockImplementationOnce((async (text: string, values?: unknown[]) => {
        await query(text, values);
        throw Object.assign(new Error("Connection terminated unexpectedly"), { code: undefined });
      }) as never);
      await db.ready();
      await expect(ledger.reserveCall(call(1, { owner: "me", maxCents: 40 }), 1000, DAY)).rejects.toMatchObject({
        code: "STR_STORE_UNAVAILABLE",
      });
      expect((await ledger.rows()).map((row) => row.state)).toEqual(["pending"]);
      await liveness.heartbeat("me", 100);
      expect((await ledger.rows()).map((row) => [row.state, row.errorCode])).toEqual([
        ["failed", "STR_STORE_UNAVAILABLE"],
      ]);
      expect(await ledger.usage(DAY)).toMatchObject({ pendingCents: 0, unknownCents: 0, billedCents: 0 });
    } finally {
      await db.close();
    }
  });

  test("a lock is its owner's: others cannot take or release it, the owner may take it again", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    expect(await a.locks.acquire("k", "owner-a", 60_000)).toBe(true);
    expect(await b.locks.acquire("k", "owner-b", 60_000)).toBe(false);
    await b.locks.release("k", "owner-b");
    expect(await b.locks.acquire("k", "owner-b", 60_000)).toBe(false);
    expect(await a.locks.acquire("k", "owner-a", 60_000)).toBe(true);
    await a.locks.release("k", "owner-a");
    expect(await b.locks.acquire("k", "owner-b", 60_000)).toBe(true);
  });

  test("a replica waiting for a lock hears another replica release it at once, not when its wait runs out", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    expect(await a.locks.acquire("k", "owner-a", 60_000)).toBe(true);
    const start = performance.now();
    const released = b.locks.released("k", 20_000);
    const other = b.locks.released("other", 20_000).then(() => "other");
    await a.locks.release("k", "owner-a");
    await released;
    // Heard at once: long before its wait of 20 s runs out, whatever else the machine is doing.
    expect(performance.now() - start).toBeLessThan(10_000);
    // Only the released lock's waiters wake.
    expect(await Promise.race([other, Promise.resolve("still waiting")])).toBe("still waiting");
    expect(await b.locks.acquire("k", "owner-b", 60_000)).toBe(true);
  });

  test("a lock held by a dead owner expires within its lease, though it asked for a minute", async () => {
    const a = await open(400);
    const b = await open(400);
    expect(await a.locks.acquire("k", "owner-a", 60_000)).toBe(true);
    // "Dies": stops renewing without releasing.
    await a.close();
    const start = Date.now();
    expect(await b.locks.acquire("k", "owner-b", 60_000)).toBe(false);
    while (!(await b.locks.acquire("k", "owner-b", 60_000))) await new Promise((r) => setTimeout(r, 25));
    // Within a lease or so (0.4 s), nowhere near the minute asked for.
    expect(Date.now() - start).toBeLessThan(5000);
  });

  test("a live owner's lock is renewed past its lease, up to the time it asked for", async () => {
    // A lease of 1 s, renewed every third of it: held while renewals come up to two thirds of a lease late.
    const a = await open(1000);
    const b = await open(1000);
    expect(await a.locks.acquire("k", "owner-a", 4000)).toBe(true);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await b.locks.acquire("k", "owner-b", 4000)).toBe(false);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await b.locks.acquire("k", "owner-b", 4000)).toBe(true);
  });

  test("a schema dropped under a running store is migrated again on the next call", async () => {
    const store = await open();
    await store.liveness.heartbeat("r", 1000);
    await dropNamespace(urls, ns);
    await store.liveness.heartbeat("r", 1000).catch(() => undefined);
    await store.liveness.heartbeat("r", 1000);
    expect(await store.ledger.usage(0)).toMatchObject({ calls: 0 });
  });

  test("Redis or Postgres away: calls fail at once naming the part, ping says so, nothing hangs", async () => {
    const noRedis = await open(3000, { ...urls, redisUrl: withPort(urls.redisUrl, await closedPort()) });
    const t0 = Date.now();
    await expect(noRedis.cache.get("k")).rejects.toMatchObject({ code: "STR_STORE_UNAVAILABLE", part: "Redis" });
    await expect(noRedis.locks.acquire("k", "o", 1000)).rejects.toMatchObject({
      code: "STR_STORE_UNAVAILABLE",
      part: "Redis",
    });
    await expect(noRedis.ping()).rejects.toMatchObject({ code: "STR_STORE_UNAVAILABLE", part: "Redis" });
    // Refused, all three, before a single command would have timed out.
    expect(Date.now() - t0).toBeLessThan(STORE_TIMEOUT_MS);
    // Its Postgres half still works.
    expect(await noRedis.ledger.usage(0)).toMatchObject({ calls: 0 });

    const noPostgres = await open(3000, { ...urls, databaseUrl: withPort(urls.databaseUrl, await closedPort()) });
    await expect(noPostgres.ledger.reserveCall(call(1), 1000, DAY)).rejects.toMatchObject({
      code: "STR_STORE_UNAVAILABLE",
      part: "Postgres",
    });
    await expect(noPostgres.ledger.usage(0)).rejects.toMatchObject({ code: "STR_STORE_UNAVAILABLE", part: "Postgres" });
    await expect(noPostgres.ping()).rejects.toMatchObject({ code: "STR_STORE_UNAVAILABLE", part: "Postgres" });
    expect(await noPostgres.cache.get("k")).toBeUndefined();
  });
});
