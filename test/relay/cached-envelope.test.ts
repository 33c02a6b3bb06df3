import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { CachedAnswer } from "../../src/relay/store/store";

// The driver this Node runs (better-sqlite3 13, or 12 on Node 20).
const Database = sqliteDriver();

/**
 * A cached answer's comparables are stored apart from the rest (src/relay/store/cached-envelope.ts),
 * so a read that shows none leaves them unread. Whatever the read, the answer must come back as it
 * was put: same fields, same order, every comparable when asked for.
 */
const comparable = (n: number) => ({
  title: `Comp ${n}`,
  bedrooms: 3,
  annualRevenueUSD: 40_000 + n,
  distanceMiles: n / 10,
});

function entry(key: string, comparables = [comparable(1), comparable(2), comparable(3)]): CachedAnswer {
  return {
    key,
    op: "buy",
    envelope: {
      success: true,
      // comparables in the middle of the fields, as the service sends them.
      data: { _id: `id-${key}`, revenue: { p50: 1 }, comparables, yearOneCashFlowUSD: 12_000 } as never,
      warnings: ["a warning"],
      extra: { requestId: "r-1" },
      notes: [],
    },
    analysisId: `id-${key}`,
    fetchedAt: 1_700_000_000_000,
    costCents: 20,
  };
}

function tempFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), "str-cache-")), "relay.sqlite");
}

describe("the SQLite store's cached answers", () => {
  let store: SqliteStore;
  let file: string;
  beforeEach(() => {
    file = tempFile();
    store = new SqliteStore(file);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  test("come back whole, fields in their order, when read with their comparables", async () => {
    const put = entry("k1");
    await store.cache.put(put);
    const got = await store.cache.get("k1");
    expect(got).toEqual(put);
    expect(Object.keys(got?.envelope.data ?? {})).toEqual(Object.keys(put.envelope.data ?? {}));
  });

  test("read without comparables: the same answer with an empty list, and the comparables are not in the row read", async () => {
    await store.cache.put(entry("k1"));
    const got = await store.cache.get("k1", { comparables: false });
    const { comparables: _left, ...rest } = entry("k1").envelope.data as unknown as Record<string, unknown>;
    expect(got?.envelope.data).toEqual({ ...rest, comparables: [] });
    expect(Object.keys(got?.envelope.data ?? {})).toEqual(Object.keys(entry("k1").envelope.data ?? {}));
    expect(got?.envelope.warnings).toEqual(["a warning"]);
    // The envelope column holds no comparable: a read that leaves out the comparables column reads none.
    const db = new Database(file, { readonly: true });
    try {
      const row = db.prepare("SELECT envelope, comparables FROM cache_v2 WHERE key = 'k1'").get() as {
        envelope: string;
        comparables: string;
      };
      expect(row.envelope).not.toMatch(/Comp \d/);
      expect(JSON.parse(row.comparables)).toEqual([comparable(1), comparable(2), comparable(3)]);
    } finally {
      db.close();
    }
  });

  test("an answer without data round-trips either way", async () => {
    const put: CachedAnswer = {
      ...entry("k2"),
      envelope: { success: false, warnings: ["all AI steps failed"], extra: {}, notes: [] },
      analysisId: undefined,
    };
    await store.cache.put(put);
    expect(await store.cache.get("k2")).toEqual(put);
    expect(await store.cache.get("k2", { comparables: false })).toEqual(put);
  });

  test("a newer answer replaces the comparables of the older one", async () => {
    await store.cache.put(entry("k3"));
    await store.cache.put(entry("k3", [comparable(9)]));
    expect((await store.cache.get("k3"))?.envelope.data?.comparables).toEqual([comparable(9)]);
  });
});

describe("opening a store that a relay one version back wrote (cache_v1)", () => {
  const V1 =
    "CREATE TABLE IF NOT EXISTS cache_v1 (key TEXT PRIMARY KEY, op TEXT NOT NULL, envelope TEXT NOT NULL, analysis_id TEXT, fetched_at INTEGER NOT NULL, cost_cents INTEGER NOT NULL)";
  /** Writes entries as the older relay did: the whole envelope in one column. */
  function writeV1(file: string, entries: CachedAnswer[]): void {
    const db = new Database(file);
    try {
      db.exec(V1);
      const insert = db.prepare("INSERT INTO cache_v1 VALUES (?, ?, ?, ?, ?, ?)");
      db.transaction(() =>
        entries.forEach((e) =>
          insert.run(e.key, e.op, JSON.stringify(e.envelope), e.analysisId, e.fetchedAt, e.costCents),
        ),
      )();
    } finally {
      db.close();
    }
  }
  function cacheTables(file: string): string[] {
    const db = new Database(file, { readonly: true });
    try {
      return (
        db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'cache_%' ORDER BY name")
          .all() as { name: string }[]
      ).map((t) => t.name);
    } finally {
      db.close();
    }
  }
  let file: string;
  beforeEach(() => {
    file = tempFile();
  });
  afterEach(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

  test("moves every cached answer into cache_v2 and drops cache_v1", async () => {
    // More than two pages of the move (500 rows each).
    writeV1(
      file,
      Array.from({ length: 1201 }, (_, n) => entry(`old-${n}`)),
    );
    const store = new SqliteStore(file);
    try {
      expect(await store.cache.get("old-0")).toEqual(entry("old-0"));
      expect(await store.cache.get("old-1200")).toEqual(entry("old-1200"));
      expect((await store.cache.get("old-700", { comparables: false }))?.envelope.data?.comparables).toEqual([]);
    } finally {
      await store.close();
    }
    expect(cacheTables(file)).toEqual(["cache_v2"]);
  });

  test("an answer cache_v2 already holds is newer: it stays", async () => {
    // Two relays on one file, the newer one first: the older one made cache_v1 again and wrote to it.
    const newer = new SqliteStore(file);
    await newer.cache.put(entry("both", [comparable(7), comparable(8)]));
    await newer.close();
    writeV1(file, [entry("both", [comparable(1)]), entry("only-old")]);
    const store = new SqliteStore(file);
    try {
      expect(await store.cache.get("both")).toEqual(entry("both", [comparable(7), comparable(8)]));
      expect(await store.cache.get("only-old")).toEqual(entry("only-old"));
    } finally {
      await store.close();
    }
    expect(cacheTables(file)).toEqual(["cache_v2"]);
  });
});
