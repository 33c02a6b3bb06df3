import { Client } from "pg";
import { UsageAnswer } from "../../src/contract";
import { pacingRule } from "../../src/relay/pacing/pacer";
import { RedisPacer } from "../../src/relay/pacing/redis-pacer";
import { MIGRATIONS } from "../../src/relay/store/postgres/postgres-migrations";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";
import {
  SharedUrls,
  describeShared,
  dropNamespace,
  openTestStore,
  testNamespace,
  listeningSandbox,
} from "../support/scale";

const KEY = "sk_caller_budgets_test_0123456789";
const ALICE = "rt_alice_0123456789abcdef";
const BOB = "rt_bob_0123456789abcdef01";
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const DAY = Date.UTC(2030, 0, 10);

describeShared("per-token budgets on the shared store (Redis + Postgres)", (urls: SharedUrls) => {
  let ns: string;
  let sandbox: Sandbox;
  let sandboxUrl: string;
  const relays: TestRelay[] = [];

  /** A replica in live mode against the one sandbox, on the shared store, pacing through Redis. */
  const replica = async (): Promise<TestRelay> => {
    const store = await openTestStore(urls, ns);
    const relay = await startRelay(
      {
        STR_API_KEY: KEY,
        STR_API_BASE_URL: sandboxUrl,
        RELAY_TOKENS: `alice:${ALICE},bob:${BOB}`,
        RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice:1",
        RELAY_BUDGET_USD_PER_DAY: "1000",
      },
      { store, pacer: new RedisPacer(store.redis, pacingRule(100), ns) },
    );
    relays.push(relay);
    return relay;
  };

  beforeEach(async () => {
    ns = testNamespace("caller_budgets");
    ({ sandbox, url: sandboxUrl } = await listeningSandbox(KEY));
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.close()));
    await sandbox.app.close();
    await dropNamespace(urls, ns);
  });

  test("alice's calls split over two replicas cannot pass her 1 USD together; bob's all go through; both replicas report the same split", async () => {
    const [a, b] = [await replica(), await replica()];
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 4 < 2 ? a : b).post(BUY_PATH, buyBody(i), as(i % 2 ? BOB : ALICE))),
    );
    const alices = answers.filter((_, i) => i % 2 === 0);
    expect(alices.filter((x) => x.status === 200)).toHaveLength(5);
    expect(alices.filter((x) => x.status === 402).map((x) => x.json.error.code)).toEqual(
      Array(7).fill("STR_CALLER_BUDGET_EXCEEDED"),
    );
    expect(answers.filter((_, i) => i % 2 === 1).map((x) => x.status)).toEqual(Array(12).fill(200));
    expect(sandbox.state.totals().cents).toBe(100 + 12 * 20);

    const [fromA, fromB] = await Promise.all([a.get("/v1/usage", as(ALICE)), b.get("/v1/usage", as(BOB))]);
    const lines = (u: UsageAnswer) =>
      (u.callers ?? []).map(({ id, label, today, budget }) => ({ id, label, cost: today.costUSD, budget }));
    expect(lines(fromA.json)).toEqual(lines(fromB.json));
    expect(lines(fromA.json)).toEqual([
      { id: a.relay.callers.idOf(BOB), label: "bob", cost: 2.4, budget: undefined },
      { id: a.relay.callers.idOf(ALICE), label: "alice", cost: 1, budget: { dailyUSD: 1, remainingTodayUSD: 0 } },
    ]);
    expect((fromA.json as UsageAnswer).callers?.find((c) => c.you)?.label).toBe("alice");
  });

  test("a schema written before callers were recorded is migrated in place: old rows kept, booked to no caller", async () => {
    const pg = new Client({ connectionString: urls.databaseUrl });
    await pg.connect();
    try {
      // The schema as the relay one version back left it: migrations 1 and 2, and a call it made.
      await pg.query(`CREATE SCHEMA "${ns}"`);
      await pg.query(
        `CREATE TABLE "${ns}".migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      for (const m of MIGRATIONS.filter((x) => x.version <= 2)) {
        await pg.query(m.sql(`"${ns}"`, `'${ns}'`));
        await pg.query(`INSERT INTO "${ns}".migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      }
      await pg.query(`SELECT * FROM "${ns}".reserve_call_v1('buy', 'old-key', 20, 'old-relay', $1, 1000, $2)`, [
        DAY + 1,
        DAY,
      ]);
      const store = await openTestStore(urls, ns);
      try {
        const reserve = (n: number, callerId: string) =>
          store.ledger.reserveCall(
            { op: "buy", cacheKey: `k${n}`, maxCents: 20, owner: "new", startedAt: DAY + 10 + n, callerId },
            1000,
            DAY,
            30,
          );
        expect(await reserve(1, "id-alice")).toMatchObject({ ok: true });
        expect(await reserve(2, "id-alice")).toEqual({ ok: false, limit: "caller", committedCents: 20 });
        expect((await store.ledger.rows()).map((r) => [r.cacheKey, r.callerId])).toEqual([
          ["old-key", undefined],
          ["k1", "id-alice"],
        ]);
        expect(await store.ledger.committedCents(DAY)).toBe(40);
        expect(await store.ledger.committedCents(DAY, "id-alice")).toBe(20);
        // A replica one version back still reserves through reserve_call_v1, under the same lock.
        const old = await pg.query(
          `SELECT reserved_id FROM "${ns}".reserve_call_v1('buy', 'k3', 20, 'old-relay', $1, 1000, $2)`,
          [DAY + 20, DAY],
        );
        expect(old.rows[0].reserved_id).not.toBeNull();
        expect((await pg.query(`SELECT max(version) AS v FROM "${ns}".migrations`)).rows[0].v).toBe(
          MIGRATIONS.at(-1)?.version,
        );
      } finally {
        await store.close();
      }
    } finally {
      await pg.end();
    }
  });
});
