import fs from "node:fs";
import path from "node:path";
import { canonicalRequest, validateRequest } from "../../src/contract";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import {
  BatchLine,
  Child,
  RELAY_TOKEN,
  SANDBOX_KEY,
  buyParams,
  ensureBuilt,
  runBatch,
  startChild,
} from "../support/scale";
import {
  Epoch,
  keyOfSubject,
  lastEpoch,
  lineProblems,
  reconcile,
  report,
  sandboxQuiet,
  startLoggedSandbox,
  summary,
  tally,
  tempDir,
} from "./support";

/**
 * Crash safety: the relay process killed with SIGKILL mid-batch and started again on the same
 * SQLite store, in front of a sandbox process that logs its bill (sandbox-ledger.js).
 *
 * What the first relay answered is answered again from the store; the calls it had in flight are
 * unknown (they may have billed) and refused with 409, not sent again; what it never sent is sent
 * now, once. The sandbox creates nothing twice and the ledger is its bill plus the unknown calls.
 */

const ITEMS = 300;
/** Heartbeats every second: a dead relay's calls in flight settle as unknown within 3 s. */
const HEARTBEAT_SECONDS = "1";

const work = Array.from({ length: ITEMS }, (_, i) => ({ strategy: "buy", params: buyParams(i, "Crash") }));
const keyOf = (i: number) => {
  const v = validateRequest("buy", work[i]?.params);
  if (!v.ok) throw new Error("invalid test item");
  return keyOfSubject(canonicalRequest("buy", v.value));
};
const admitted = (epoch: Epoch) => epoch.arrivals.filter((a) => a.ok).length;
const auth = { authorization: `Bearer ${RELAY_TOKEN}` };

describe("crash safety: the relay killed with SIGKILL mid-batch and restarted on the same store", () => {
  const dir = tempDir("crash");
  const dataDir = path.join(dir, "relay");
  const logFile = path.join(dir, "sandbox.log");
  const children: Child[] = [];
  let sandbox: Child;

  const startRelayProcess = () =>
    startChild(
      "relay/str-relay.js",
      {
        STR_API_KEY: SANDBOX_KEY,
        STR_API_BASE_URL: sandbox.url,
        RELAY_PORT: "0",
        RELAY_DATA_DIR: dataDir,
        RELAY_TOKENS: RELAY_TOKEN,
        RELAY_CALLER_RPS: "100000",
        RELAY_BUDGET_USD_PER_DAY: "100000",
        RELAY_HEARTBEAT_SECONDS: HEARTBEAT_SECONDS,
        RELAY_LOG_LEVEL: "warn",
      },
      /listening on (https?:\/\/[\d.]+:\d+)/,
    ).then((child) => {
      children.push(child);
      return child;
    });

  /** The test's own view of the relay's SQLite file, open only while it looks. */
  async function withStore<T>(look: (store: SqliteStore) => Promise<T>): Promise<T> {
    const store = new SqliteStore(path.join(dataDir, "relay.sqlite"));
    try {
      return await look(store);
    } finally {
      await store.close();
    }
  }

  beforeAll(async () => {
    ensureBuilt();
    // Reports take 0.2–0.6 s: at 100 sends a second some 40 calls are in flight at any moment.
    sandbox = await startLoggedSandbox(logFile, { SANDBOX_TIME_SCALE: "0.02" });
    children.push(sandbox);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("cached results survive, calls in flight are unknown and not resent, a re-run completes the rest", async () => {
    const started = Date.now();
    const first = await startRelayProcess();

    // Kill the relay once 80 items have been answered, while others are in flight and more wait to be sent.
    let killing: Promise<void> | undefined;
    let answered = 0;
    const run = await runBatch(first.url, work, () => {
      if (!killing && ++answered >= 80) killing = first.kill();
    });
    await killing;
    expect(first.process.signalCode).toBe("SIGKILL");
    expect(run.broken || run.lines.length < ITEMS).toBe(true);
    expect(lineProblems(run.lines, ITEMS).filter((p) => !/items, \d+ answered/.test(p))).toEqual([]);
    const before = new Map(run.lines.filter((l) => l.status === 200).map((l) => [l.index, l] as const));
    expect(before.size).toBeGreaterThanOrEqual(80);
    expect(before.size).toBeLessThan(ITEMS);

    // The sandbox finishes (and bills) what was sent to it; nothing more arrives.
    await sandboxQuiet(sandbox.url);
    const atKill = lastEpoch(logFile);
    const createdBefore = new Set(atKill.bills.map((b) => keyOfSubject(b.subject)));
    const sentBefore = admitted(atKill);
    expect(sentBefore).toBeLessThan(ITEMS);
    // Calls were in flight: sent, and not answered to the caller.
    expect(sentBefore).toBeGreaterThan(before.size);

    const second = await startRelayProcess();
    // Usually the re-run starts before the new relay's heartbeat has settled the dead one's calls:
    // those wait for the settling (which also frees the dead relay's request locks), then get 409.
    const pendingAtRerun = await withStore((store) => store.ledger.rows()).then(
      (rows) => rows.filter((row) => row.state === "pending").length,
    );
    const rerunStarted = Date.now();
    const again = await runBatch(second.url, work);
    const rerunMs = Date.now() - rerunStarted;
    expect(again.broken).toBe(false);
    expect(lineProblems(again.lines, ITEMS)).toEqual([]);
    const outcomes = tally(again.lines);
    expect(Object.keys(outcomes).filter((o) => o !== "200" && o !== "409 STR_OUTCOME_UNKNOWN")).toEqual([]);
    const byIndex = new Map(again.lines.map((l) => [l.index, l] as const));

    // Answered before the kill: the same analysis, from the store, nothing sent.
    for (const [index, line] of before) {
      expect(byIndex.get(index)?.status).toBe(200);
      expect(byIndex.get(index)?.body.relay.cached).toBe(true);
      expect(byIndex.get(index)?.body.data._id).toBe(line.body.data._id);
    }
    const unanswered = (l: BatchLine) => !before.has(l.index);
    const refused = again.lines.filter((l) => l.status === 409);
    const createdNow = again.lines.filter((l) => l.status === 200 && l.body.relay.cached === false);
    const keptButNotDelivered = again.lines.filter(
      (l) => unanswered(l) && l.status === 200 && l.body.relay.cached === true,
    );
    expect(refused.length).toBeGreaterThan(0);
    // Refused: sent by the dead relay (or about to be), never sent again.
    for (const l of refused)
      expect(
        lastEpoch(logFile).bills.filter((b) => keyOfSubject(b.subject) === keyOf(l.index)).length,
      ).toBeLessThanOrEqual(1);
    // Created now: the dead relay had not sent them.
    for (const l of createdNow) expect(createdBefore.has(keyOf(l.index))).toBe(false);
    // Kept in the store by the dead relay (its answer stored) but not delivered before the kill.
    for (const l of keptButNotDelivered) expect(createdBefore.has(keyOf(l.index))).toBe(true);
    await sandboxQuiet(sandbox.url);
    const afterRerun = lastEpoch(logFile);
    // The re-run sent exactly the items created now, each once.
    expect(admitted(afterRerun) - sentBefore).toBe(createdNow.length);

    // The ledger: the dead relay's calls in flight settled unknown by the live one's heartbeat.
    const usage = await fetch(`${second.url}/v1/usage`, { headers: auth }).then((r) => r.json() as Promise<any>);
    expect(usage.today.pendingUSD).toBe(0);
    expect(usage.today.unknownUSD).toBeGreaterThan(0);
    const ledger = await withStore((store) => store.ledger.rows());
    const books = reconcile(ledger, afterRerun.bills);
    expect(books.problems).toEqual([]);
    expect(books.duplicateCreates).toBe(0);
    expect(books.relayBilledCents).toBeLessThanOrEqual(books.sandboxCents);
    expect(books.sandboxCents).toBeLessThanOrEqual(books.relayBilledCents + books.unknownMaxCents);
    expect(usage.today.unknownUSD).toBeCloseTo(books.unknownMaxCents / 100, 6);
    expect(usage.today.costUSD).toBeCloseTo(books.relayBilledCents / 100, 6);
    // One call per request across both relays (none sent twice), and every refused item's call is unknown.
    expect(new Set(ledger.map((row) => row.cacheKey)).size).toBe(ledger.length);
    const state = new Map(ledger.map((row) => [row.cacheKey, row.state]));
    expect(refused.map((l) => state.get(keyOf(l.index))).filter((s) => s !== "unknown")).toEqual([]);
    expect(ledger.filter((row) => row.state === "unknown").length).toBeGreaterThanOrEqual(refused.length);

    // A third run changes nothing: the same answers, nothing sent.
    const third = await runBatch(second.url, work);
    expect(tally(third.lines)).toEqual(outcomes);
    expect(admitted(lastEpoch(logFile))).toBe(admitted(afterRerun));
    // And the relay serves a request it has never seen.
    const fresh = await fetch(`${second.url}/v1/external/analysis/create/buy`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(buyParams(0, "CrashAfter")),
    });
    expect(fresh.status).toBe(200);
    report("relay SIGKILL", {
      items: ITEMS,
      answeredBeforeKill: before.size,
      sentBeforeKill: sentBefore,
      createdBeforeKill: createdBefore.size,
      rerun: outcomes,
      createdNow: createdNow.length,
      keptButNotDelivered: keptButNotDelivered.length,
      refused: refused.length,
      pendingAtRerun,
      rerunMs,
      ...summary(books),
      ms: Date.now() - started,
    });
  }, 90_000);
});

describe("a dead relay's request locks (SQLite store)", () => {
  test("are freed when its calls are settled as unknown, so the restarted relay answers 409 instead of waiting out the lock", async () => {
    const store = new SqliteStore(":memory:");
    const t0 = Date.now();
    const clock = jest.spyOn(Date, "now").mockReturnValue(t0);
    try {
      await store.liveness.heartbeat("dead", 1000);
      expect(await store.locks.acquire("k", "dead", 360_000)).toBe(true);
      expect(
        await store.ledger.reserveCall(
          { op: "buy", cacheKey: "k", maxCents: 20, owner: "dead", startedAt: t0 },
          1e9,
          0,
        ),
      ).toMatchObject({ ok: true });
      await store.liveness.heartbeat("other", 1000);
      expect(await store.locks.acquire("k2", "other", 360_000)).toBe(true);

      // The restarted relay: the dead one is not stale yet, so its call and its lock stand.
      clock.mockReturnValue(t0 + 1000);
      await store.liveness.heartbeat("live", 1000);
      expect(await store.liveness.settleOrphans("live", 3000)).toBe(0);
      expect(await store.locks.acquire("k", "live", 360_000)).toBe(false);

      // Three beats later: its call is unknown and its lock free; the call is refused under the lock, not resent.
      clock.mockReturnValue(t0 + 4000);
      await store.liveness.heartbeat("live", 1000);
      await store.liveness.heartbeat("other", 1000);
      expect(await store.liveness.settleOrphans("live", 3000)).toBe(1);
      expect((await store.ledger.lastCall("k"))?.state).toBe("unknown");
      expect(await store.locks.acquire("k", "live", 360_000)).toBe(true);
      // A live replica's locks are kept.
      expect(await store.locks.acquire("k2", "live", 360_000)).toBe(false);
    } finally {
      clock.mockRestore();
      await store.close();
    }
  });
});
