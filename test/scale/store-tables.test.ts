import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { Client } from "pg";
import { COMMITTED_CENTS_SQL, heldCents } from "../../src/relay/store/committed-spend";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { CALL_STATES } from "../../src/relay/store/store";
import { oldPostgresSchema } from "../support/old-schemas";
import { SharedUrls, describeShared, dropNamespace, openTestStore, testNamespace } from "../support/scale";

/*
 * The shared store's tables are named for their layouts, as the SQLite store's are: the ledger is
 * ledger_v2 in both, with the same columns (migration 6 renamed Postgres's ledger_v1 and gave it
 * each call's day). A namespace written before opens with everything it held, and replicas one
 * version back keep working on it during a rolling upgrade.
 */

const DAY = Date.UTC(2030, 4, 7);
const YESTERDAY = DAY - 86_400_000;

describeShared("the shared store's tables, named for their layouts", (urls: SharedUrls) => {
  let ns: string;
  let pg: Client;
  const q = (text: string, values: unknown[] = []) => pg.query(text.replaceAll("$ns", `"${ns}"`), values);
  beforeEach(async () => {
    ns = testNamespace("tables");
    pg = new Client({ connectionString: urls.databaseUrl });
    await pg.connect();
  });
  afterEach(async () => {
    await pg.end();
    await dropNamespace(urls, ns);
  });

  /** A reservation as a replica one version back makes it (reserve_call_v2, on ledger_v1). */
  const oldReserve = async (key: string, maxCents: number, startedAt: number, caller?: string, budget = 10_000) => {
    const { rows } = await q(
      "SELECT reserved_id, refused_by FROM $ns.reserve_call_v2('buy', $1, $2, 'old-relay', $3, $4, $5, $6, $7, NULL)",
      [
        key,
        maxCents,
        startedAt,
        budget,
        startedAt - (startedAt % 86_400_000),
        caller ?? null,
        caller?.slice(3) ?? null,
      ],
    );
    return rows[0] as { reserved_id: string | null; refused_by: string | null };
  };
  /** Its finish: the update of relay one version back. */
  const oldFinish = (id: string, state: string, cents: number, analysisId: string | null = null) =>
    q(
      "UPDATE $ns.ledger_v1 SET state = $2, status = 200, cents = $3, reports = 1, analysis_id = $4, finished_at = $5 WHERE id = $1 AND state IN ('pending', 'unknown')",
      [id, state, cents, analysisId, DAY + 500],
    );

  test("a namespace written before opens with its ledger, analyses, jobs, secret, heartbeats and cache", async () => {
    await q(oldPostgresSchema(`"${ns}"`, `'${ns}'`));
    const ids: string[] = [];
    for (const [key, max, at, caller] of [
      ["k-yesterday", 20, YESTERDAY + 5, "id-alice"],
      ["k-billed", 40, DAY + 1, "id-alice"],
      ["k-pending", 40, DAY + 2, "id-bob"],
      ["k-unknown", 30, DAY + 3, undefined],
    ] as const)
      ids.push((await oldReserve(key, max, at, caller)).reserved_id as string);
    await oldFinish(ids[0] as string, "billed", 20);
    await oldFinish(ids[1] as string, "billed", 20, "an-1");
    await q("UPDATE $ns.ledger_v1 SET state = 'unknown', error_code = 'STR_OUTCOME_UNKNOWN' WHERE id = $1", [ids[3]]);
    await q("INSERT INTO $ns.analyses_v1 VALUES ('an-1', 'buy', 'buy', '{\"_id\":\"an-1\",\"score\":7}', '[]', $1)", [
      DAY + 500,
    ]);
    await q(
      "INSERT INTO $ns.jobs_v1 VALUES ('job-1', 'id-alice', '[{\"strategy\":\"buy\"},{\"strategy\":\"buy\"}]', '{}', 2, 'running', 'old-relay', 0, $1, NULL)",
      [DAY],
    );
    await q("INSERT INTO $ns.job_results_v1 VALUES ('job-1', 0, '{\"ok\":true}')");
    await q("INSERT INTO $ns.secrets_v1 VALUES ('caller-id', 'the-old-secret')");
    await q("INSERT INTO $ns.replicas_v1 VALUES ('old-relay', 1000, 900)");
    const redis = new Redis(urls.redisUrl);
    const entry = { key: "k-billed", op: "buy", envelope: { success: true, data: { _id: "an-1", comparables: [] } } };
    await redis.hset(`${ns}:cache_v2:k-billed`, { entry: JSON.stringify({ ...entry, fetchedAt: DAY, costCents: 20 }) });
    redis.disconnect();
    const before = (await q("SELECT * FROM $ns.ledger_v1 ORDER BY id")).rows;

    const store = await openTestStore(urls, ns);
    try {
      const rows = await store.ledger.rows();
      expect(rows.map((r) => [r.id, r.cacheKey, r.state, r.cents, r.maxCents, r.callerId, r.day])).toEqual(
        before.map((r) => [r.id, r.cache_key, r.state, r.cents, r.max_cents, r.caller_id ?? undefined, undefined]),
      );
      expect(rows.map((r) => r.state)).toEqual(["billed", "billed", "pending", "unknown"]);
      // Billed 20, pending 40, unknown 30 today; alice's 20 of them.
      expect(await store.ledger.committedCents(DAY)).toBe(90);
      expect(await store.ledger.committedCents(DAY, "id-alice")).toBe(20);
      expect(await store.ledger.lastCall("k-billed")).toMatchObject({ state: "billed", analysisId: "an-1" });
      expect(await store.analyses.get("an-1")).toMatchObject({ strategy: "buy", data: { score: 7 } });
      expect(await store.jobs.get("job-1", "id-alice")).toMatchObject({ status: "running", total: 2, done: 1 });
      expect(await store.jobs.results("job-1", 0, 2)).toEqual([{ ok: true }, null]);
      expect(await store.keptSecret("caller-id", "a-new-candidate")).toBe("the-old-secret");
      expect(await store.cache.get("k-billed")).toMatchObject({ costCents: 20, envelope: { data: { _id: "an-1" } } });
      expect((await q("SELECT owner, beating_since FROM $ns.replicas_v2")).rows).toEqual([
        { owner: "old-relay", beating_since: "900" },
      ]);
      // New calls follow the old ones, with their day; the budget counts both.
      const next = await store.ledger.reserveCall(
        { op: "buy", cacheKey: "k-new", maxCents: 10, owner: "new", startedAt: DAY + 9 },
        100,
        DAY,
      );
      expect(next).toEqual({ ok: true, id: String(Number(ids[3]) + 1) });
      expect((await store.ledger.rows()).at(-1)).toMatchObject({ cacheKey: "k-new", day: DAY, state: "pending" });
      expect(await store.ledger.reserveCall({ ...call("k-over"), maxCents: 1 }, 100, DAY)).toEqual({
        ok: false,
        limit: "relay",
        committedCents: 100,
      });
    } finally {
      await store.close();
    }
  });

  test("a replica one version back keeps reserving, finishing and beating through the old names, within the same budget", async () => {
    const store = await openTestStore(urls, ns);
    try {
      expect(await store.ledger.reserveCall(call("k-new"), 100, DAY)).toMatchObject({ ok: true });
      const old = await oldReserve("k-old", 40, DAY + 2, "id-bob", 100);
      expect(old.refused_by).toBeNull();
      await oldFinish(old.reserved_id as string, "billed", 30, "an-2");
      // 40 pending + 30 billed of 100: neither the old replica nor the new can take 40 more.
      expect(await oldReserve("k-old-2", 40, DAY + 3, undefined, 100)).toEqual({
        reserved_id: null,
        refused_by: "relay",
      });
      expect(await store.ledger.reserveCall(call("k-new-2"), 100, DAY)).toEqual({
        ok: false,
        limit: "relay",
        committedCents: 70,
      });
      expect((await store.ledger.rows()).map((r) => [r.cacheKey, r.state, r.callerId, r.day])).toEqual([
        ["k-new", "pending", undefined, DAY],
        ["k-old", "billed", "id-bob", undefined],
      ]);
      expect(await store.ledger.lastCall("k-old")).toMatchObject({ state: "billed", analysisId: "an-2" });
      // The old heartbeat, and the new sweep reading it.
      await q(
        "INSERT INTO $ns.replicas_v1 AS r (owner, heartbeat_at, beating_since) VALUES ('old-relay', 1, 1) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
      );
      expect((await q("SELECT owner FROM $ns.replicas_v2")).rows).toEqual([{ owner: "old-relay" }]);
    } finally {
      await store.close();
    }
  });

  test("a name is the same columns in the Postgres and the SQLite store", async () => {
    const store = await openTestStore(urls, ns);
    await store.ping();
    await store.close();
    const pgColumns = new Map<string, string[]>();
    const { rows } = await q(
      "SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name) WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE' ORDER BY c.column_name",
      [ns],
    );
    for (const r of rows) pgColumns.set(r.table_name, [...(pgColumns.get(r.table_name) ?? []), r.column_name]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "str-tables-")), "relay.sqlite");
    await new SqliteStore(file).close();
    const db = new (sqliteDriver())(file, { readonly: true });
    const shared: string[] = [];
    try {
      const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
      for (const { name } of tables) {
        const inPostgres = pgColumns.get(name);
        if (!inPostgres) continue;
        shared.push(name);
        const columns = db
          .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${name}') ORDER BY name`)
          .all()
          .map((c) => c.name);
        expect([name, columns]).toEqual([name, inPostgres]);
      }
    } finally {
      db.close();
    }
    expect(shared.sort()).toEqual(["analyses_v1", "job_results_v1", "jobs_v1", "ledger_v2", "secrets_v1"]);
  });

  test("the reservation function sums the committed spend of committed-spend.ts, and Postgres reads its SQL as TypeScript does", async () => {
    const store = await openTestStore(urls, ns);
    await store.ping();
    await store.close();
    const { rows } = await q(
      "SELECT prosrc FROM pg_proc WHERE proname = 'reserve_call_v3' AND pronamespace = $1::regnamespace",
      [`"${ns}"`],
    );
    expect(rows[0].prosrc).toContain(`SUM(${COMMITTED_CENTS_SQL})`);
    for (const state of CALL_STATES) {
      const held = await q(
        `SELECT ${COMMITTED_CENTS_SQL} AS c FROM (VALUES ($1::text, 7, 40)) AS t (state, cents, max_cents)`,
        [state],
      );
      expect([state, held.rows[0].c]).toEqual([state, heldCents(state, 7, 40)]);
    }
  });
});

function call(cacheKey: string) {
  return { op: "buy" as const, cacheKey, maxCents: 40, owner: "new", startedAt: DAY + 1 };
}
