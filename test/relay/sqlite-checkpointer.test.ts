import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { Checkpointer } from "../../src/relay/store/sqlite/sqlite-checkpointer";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { CachedAnswer } from "../../src/relay/store/store";

/**
 * The SQLite store's commits never checkpoint its write-ahead log (a copy and an fsync that held the
 * relay's event loop about 20 ms every 30 analyses): a worker thread does, on its own connection.
 */
const comparable = (n: number) => ({ title: `Comp ${n}`, description: "x".repeat(300), annualRevenueUSD: 40_000 + n });

/** About 20 kB, as a cached answer with 50 comparables is. */
function entry(n: number): CachedAnswer {
  return {
    key: `k${n}`,
    op: "buy",
    envelope: {
      success: true,
      data: {
        _id: `id${n}`,
        revenue: { p50: n },
        comparables: Array.from({ length: 50 }, (_, i) => comparable(i)),
      } as never,
      warnings: [],
      extra: {},
      notes: [],
    },
    analysisId: `id${n}`,
    fetchedAt: 1_700_000_000_000,
    costCents: 20,
  };
}

const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25)))
    if (check()) return true;
  return check();
}

/** 400 answers of about 20 kB each committed to the store on `file`: a log of over 6 MB. */
async function fillLog(store: SqliteStore, file: string): Promise<void> {
  for (let n = 0; n < 400; n++) await store.cache.put(entry(n));
  expect(size(`${file}-wal`)).toBeGreaterThan(6_000_000);
}

/** Every worker started, so a test can wait for the checkpointer's to end. */
const mockWorkers: Worker[] = [];
jest.mock("node:worker_threads", () => {
  const actual: typeof import("node:worker_threads") = jest.requireActual("node:worker_threads");
  return {
    ...actual,
    Worker: class extends actual.Worker {
      constructor(...args: ConstructorParameters<typeof actual.Worker>) {
        super(...args);
        mockWorkers.push(this);
      }
    },
  };
});

describe("the SQLite store's checkpoints", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-checkpoint-"));
    file = path.join(dir, "relay.sqlite");
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("commits leave the log as it is, however long it grows (SQLite's own default checkpoints at 4 MB)", async () => {
    const store = new SqliteStore(file, { checkpointIntervalMs: 60_000 });
    try {
      const before = size(file);
      await fillLog(store, file);
      // Nothing was copied into the database file: no commit checkpointed.
      expect(size(file)).toBe(before);
    } finally {
      await store.close();
    }
  });

  test("the worker checkpoints the log on its own thread, and the store reads the same meanwhile", async () => {
    const store = new SqliteStore(file, { checkpointIntervalMs: 50 });
    try {
      const before = size(file);
      for (let n = 0; n < 400; n++) await store.cache.put(entry(n));
      expect(await until(() => size(file) > before + 6_000_000, 10_000)).toBe(true);
      expect(await store.cache.get("k399")).toEqual(entry(399));
    } finally {
      await store.close();
    }
    // The last connection to close takes in the log and removes it.
    expect(size(`${file}-wal`)).toBe(0);
    const reopened = new SqliteStore(file);
    expect(await reopened.cache.get("k7")).toEqual(entry(7));
    await reopened.close();
  });

  test("a large log copied whole is emptied by the worker, so the relay's next commit has no file to cut down", async () => {
    const store = new SqliteStore(file, { checkpointIntervalMs: 50 });
    try {
      await fillLog(store, file);
      // With no commit after it, the log stays at its size unless the worker empties it.
      expect(await until(() => size(`${file}-wal`) === 0, 10_000)).toBe(true);
      await store.cache.put(entry(400));
      expect(await store.cache.get("k400")).toEqual(entry(400));
      expect(await store.cache.get("k7")).toEqual(entry(7));
    } finally {
      await store.close();
    }
  });

  test("stopping empties the log on the worker's thread, so the store's own close has none to copy and remove", async () => {
    // No checkpoint before the stop: the store's own worker waits a minute, and so would this one.
    const store = new SqliteStore(file, { checkpointIntervalMs: 60_000 });
    try {
      await fillLog(store, file);
      const checkpointer = new Checkpointer({ file, intervalMs: 60_000, onFailure: () => undefined });
      await checkpointer.stop();
      // The store is still open: only the worker can have emptied the log.
      expect(size(`${file}-wal`)).toBe(0);
      expect(await store.cache.get("k399")).toEqual(entry(399));
    } finally {
      await store.close();
    }
  });

  test("a worker that fails says so once, so the store can checkpoint in its commits again", async () => {
    const failures: Error[] = [];
    const checkpointer = new Checkpointer({
      file: path.join(dir, "missing", "relay.sqlite"),
      intervalMs: 50,
      onFailure: (e) => failures.push(e),
    });
    // The worker fails with an error and then exits, each of which could report: once it has
    // exited, nothing more can.
    await new Promise((resolve) => (mockWorkers.at(-1) as Worker).once("exit", resolve));
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toMatch(/unable to open|does not exist|directory/i);
    await checkpointer.stop();
  });
});
