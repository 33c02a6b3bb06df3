import fs from "node:fs";
import path from "node:path";
import { canonicalRequest, validateRequest } from "../../src/contract";
import { LedgerRow } from "../../src/relay/store/store";
import { BUY_PATH, TestRelay, startRelay } from "../support/relay";
import { Child, SANDBOX_KEY, buyParams, ensureBuilt, resetSandbox, waitFor } from "../support/scale";
import {
  Epoch,
  Line,
  NO_FAULTS,
  keyOfSubject,
  lastEpoch,
  lineProblems,
  parseLines,
  patchFaults,
  readSandboxLog,
  reconcile,
  report,
  sandboxQuiet,
  startLoggedSandbox,
  summary,
  tally,
  tempDir,
} from "./support";

/**
 * Fault injection over whole batches, with the sandbox's knobs, against a sandbox process that
 * logs its bill (sandbox-ledger.js) and a real relay in live mode on a fresh SQLite store.
 *
 * For every fault: each item ends in a result or a clear JSON error; nothing is created twice;
 * the relay's ledger matches the sandbox's bill line by line (what the relay recorded billed was
 * billed, and whatever else the sandbox billed is a call the relay recorded unknown); and the relay
 * keeps serving once the fault stops. The single-call cases are in test/relay/faults.test.ts.
 */

const items = (n: number, tag: string, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ strategy: "buy", params: { ...buyParams(i, tag), ...extra } }));

describe("fault injection over batches: results or clear errors, nothing created twice, the ledger is the bill plus unknown", () => {
  const dir = tempDir("faults");
  const children: Child[] = [];
  let sandbox: Child;
  let logFile: string;
  let t: TestRelay | undefined;

  beforeAll(async () => {
    ensureBuilt();
    logFile = path.join(dir, "sandbox.log");
    sandbox = await startLoggedSandbox(logFile);
    children.push(sandbox);
  }, 60_000);
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh relay (its own store) in live mode on `sandboxUrl`, the sandbox reset and well. */
  async function freshRelay(
    env: Record<string, string> = {},
    sandboxUrl = sandbox.url,
    faults: Record<string, unknown> = {},
  ): Promise<TestRelay> {
    await resetSandbox(sandboxUrl);
    await patchFaults(sandboxUrl, { ...NO_FAULTS, ...faults });
    t = await startRelay({
      STR_API_KEY: SANDBOX_KEY,
      STR_API_BASE_URL: sandboxUrl,
      RELAY_BUDGET_USD_PER_DAY: "100000",
      ...env,
    });
    return t;
  }

  async function batch(relay: TestRelay, batchItems: unknown[]): Promise<Line[]> {
    const r = await relay.post("/v1/batch", { items: batchItems });
    expect(r.status).toBe(200);
    return parseLines(r.text);
  }

  /** The relay's ledger and the sandbox's bill agree, and nothing was created twice. */
  function expectBooksAgree(ledger: LedgerRow[], bills: Epoch["bills"], duplicatesAllowed = 0) {
    const books = reconcile(ledger, bills);
    expect(books.problems).toEqual([]);
    expect(books.duplicateCreates).toBe(duplicatesAllowed);
    expect(books.relayBilledCents).toBeLessThanOrEqual(books.sandboxCents);
    expect(books.sandboxCents).toBeLessThanOrEqual(books.relayBilledCents + books.unknownMaxCents);
    return books;
  }

  /** After the fault: a request never seen before is created and answered; health is ok. */
  async function expectServing(relay: TestRelay, tag: string) {
    const r = await relay.post(BUY_PATH, buyParams(0, tag));
    expect(r.status).toBe(200);
    expect(r.json.relay.cached).toBe(false);
    expect((await relay.get("/healthz")).status).toBe(200);
  }

  /** Calls the sandbox let in (not throttled): a 429 is refused before any work and may be sent again. */
  const admitted = (epoch: Epoch) => epoch.arrivals.filter((a) => a.ok).length;

  const lastStateByKey = (ledger: LedgerRow[]) => new Map(ledger.map((row) => [row.cacheKey, row.state]));

  test("503 bursts, one longer than the retries: 200 or 502 not billed; nothing unknown; a re-run completes the rest", async () => {
    const relay = await freshRelay();
    const work = items(200, "Burst");
    const started = Date.now();
    // Short bursts the retries ride out, then an outage longer than the five attempts' backoff.
    const schedule: [number, number][] = [
      [0, 1],
      [300, 0],
      [700, 1],
      [1000, 0.2],
      [1500, 1],
      [5500, 0],
    ];
    let stop = false;
    const driver = (async () => {
      for (const [at, rate] of schedule) {
        const wait = started + at - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stop) return;
        await patchFaults(sandbox.url, { unavailableRate: rate });
      }
    })();
    let lines: Line[];
    try {
      lines = await batch(relay, work);
    } finally {
      stop = true;
      await driver.catch(() => undefined);
    }
    await patchFaults(sandbox.url, { unavailableRate: 0 });
    expect(lineProblems(lines, work.length)).toEqual([]);
    const outcomes = tally(lines);
    // A 503 is processed by nothing: every failure is a clear 502 that says nothing was billed.
    expect(Object.keys(outcomes).filter((o) => o !== "200" && o !== "502 STR_UPSTREAM_FAILED")).toEqual([]);
    const failed = lines.filter((l) => l.status !== 200);
    expect(failed.every((l) => /not billed|Nothing was billed/i.test(l.body.error.message))).toBe(true);
    expect(failed.length).toBeGreaterThan(0);

    const first = lastEpoch(logFile);
    const first503 = first.statuses.filter((s) => s.status === 503).length;
    expect(first503).toBeGreaterThan(50);
    let ledger = await relay.relay.store.ledger.rows();
    expect(ledger.filter((row) => row.state === "unknown")).toEqual([]);
    expect(new Set(ledger.map((row) => row.state))).toEqual(new Set(["billed", "failed"]));
    const books = expectBooksAgree(ledger, first.bills);
    expect(books.sandboxCents).toBe(books.relayBilledCents);
    expect(first.bills).toHaveLength(work.length - failed.length);

    // The re-run sends exactly the failed items, once each, and answers the rest from the cache.
    const again = await batch(relay, work);
    expect(lineProblems(again, work.length)).toEqual([]);
    expect(tally(again)).toEqual({ "200": work.length });
    expect(
      again
        .filter((l) => !l.body.relay.cached)
        .map((l) => l.index)
        .sort((a, b) => a - b),
    ).toEqual(failed.map((l) => l.index).sort((a, b) => a - b));
    const second = lastEpoch(logFile);
    expect(admitted(second)).toBe(admitted(first) + failed.length);
    ledger = await relay.relay.store.ledger.rows();
    expectBooksAgree(ledger, second.bills);
    await expectServing(relay, "BurstAfter");
    report("503 bursts", {
      items: work.length,
      outcomes,
      sandbox503s: first503,
      rerunSent: failed.length,
      ...summary(reconcile(await relay.relay.store.ledger.rows(), lastEpoch(logFile).bills)),
      ms: Date.now() - started,
    });
  }, 60_000);

  test("connections dropped before and after the service processed the request: unknown (502), never resent, 409 on a re-run", async () => {
    const started = Date.now();
    const relay = await freshRelay({}, sandbox.url, { dropBeforeProcessRate: 0.12, dropAfterProcessRate: 0.12 });
    const work = items(200, "Drop");
    const lines = await batch(relay, work);
    await patchFaults(sandbox.url, { dropBeforeProcessRate: 0, dropAfterProcessRate: 0 });
    expect(lineProblems(lines, work.length)).toEqual([]);
    const outcomes = tally(lines);
    expect(Object.keys(outcomes).filter((o) => o !== "200" && o !== "502 STR_UPSTREAM_FAILED")).toEqual([]);
    const stats = await sandboxQuiet(sandbox.url);
    const dropped = stats.dropped.beforeProcess + stats.dropped.afterProcess;
    expect(stats.dropped.beforeProcess).toBeGreaterThan(0);
    expect(stats.dropped.afterProcess).toBeGreaterThan(0);
    // The relay cannot tell the two apart (the request was written whole both times): each is unknown.
    const lost = lines.filter((l) => l.status !== 200);
    expect(lost).toHaveLength(dropped);
    expect(lost.every((l) => /may have processed/.test(l.body.error.message))).toBe(true);
    const ledger = await relay.relay.store.ledger.rows();
    expect(ledger).toHaveLength(work.length);
    const states = lastStateByKey(ledger);
    const epoch = lastEpoch(logFile);
    // Each item reached the service once (a 429, never billed, may have been sent again).
    expect(admitted(epoch)).toBe(work.length);
    const books = expectBooksAgree(ledger, epoch.bills);
    expect(books.unknownCalls).toBe(dropped);
    // Exactly the calls dropped after processing were billed without the relay knowing.
    expect(books.billedUnseen).toBe(stats.dropped.afterProcess);

    // Nothing is sent again: answered items come from the cache, lost ones are refused until refreshed.
    const again = await batch(relay, work);
    expect(lineProblems(again, work.length)).toEqual([]);
    expect(tally(again)).toEqual({ "200": work.length - dropped, "409 STR_OUTCOME_UNKNOWN": dropped });
    expect(again.filter((l) => l.status === 200).every((l) => l.body.relay.cached === true)).toBe(true);
    expect(new Set(again.filter((l) => l.status === 409).map((l) => l.index))).toEqual(
      new Set(lost.map((l) => l.index)),
    );
    expect(admitted(lastEpoch(logFile))).toBe(work.length);
    expect([...states.values()].filter((s) => s === "unknown")).toHaveLength(dropped);
    await expectServing(relay, "DropAfter");
    report("dropped connections", {
      items: work.length,
      outcomes,
      droppedBefore: stats.dropped.beforeProcess,
      droppedAfter: stats.dropped.afterProcess,
      ...summary(books),
      ms: Date.now() - started,
    });
  }, 60_000);

  test("a 429 storm (the service allows 20 a second, the relay paces at 100): Retry-After honoured, every item created once", async () => {
    const started = Date.now();
    const relay = await freshRelay({ RELAY_UPSTREAM_RPS: "100" }, sandbox.url, { rateLimitPerSecond: 20 });
    const work = items(100, "Storm");
    const lines = await batch(relay, work);
    const elapsed = Date.now() - started;
    await patchFaults(sandbox.url, { rateLimitPerSecond: 100 });
    expect(lineProblems(lines, work.length)).toEqual([]);
    expect(tally(lines)).toEqual({ "200": work.length });
    const epoch = lastEpoch(logFile);
    const throttled = epoch.arrivals.filter((a) => !a.ok);
    expect(throttled.length).toBeGreaterThan(0);
    // Honouring Retry-After (1 s here) means a pause after each 429, not another send at once: a
    // relay that bounced would meet about four 429s per item at these rates.
    expect(throttled.length).toBeLessThan(work.length / 2);
    const sendsDuringPause = throttled.map(
      (t429) => epoch.arrivals.filter((a) => a.at > t429.at + 250 && a.at < t429.at + 900).length,
    );
    expect(sendsDuringPause.filter((n) => n > 0)).toEqual([]);
    expect(admitted(epoch)).toBe(work.length);
    const ledger = await relay.relay.store.ledger.rows();
    const books = expectBooksAgree(ledger, epoch.bills);
    expect(books).toMatchObject({
      unknownCalls: 0,
      sandboxCents: 20 * work.length,
      relayBilledCents: 20 * work.length,
    });
    await expectServing(relay, "StormAfter");
    report("429 storm", {
      items: work.length,
      arrivals: epoch.arrivals.length,
      throttled: throttled.length,
      batchMs: elapsed,
      ...summary(books),
      ms: Date.now() - started,
    });
  }, 60_000);

  test("AI steps slower than the relay's timeout: 504, unknown, not resent; 409 until an explicit refresh, which bills once more", async () => {
    const started = Date.now();
    // Reports take 0.4–1.2 s and AI expense estimates 0.2–0.6 s more; an AI step that runs into the
    // service's 90 s limit takes 3.6 s. The relay's 2.7 s sits 0.9 s from both, room for a loaded CI machine.
    const slowLog = path.join(dir, "slow.log");
    const slow = await startLoggedSandbox(slowLog, { SANDBOX_TIME_SCALE: "0.04" });
    children.push(slow);
    const relay = await freshRelay({ RELAY_UPSTREAM_TIMEOUT_SECONDS: "2.7" }, slow.url, {
      aiTimeoutRate: 0.25,
      aiFailureRate: 0.05,
    });
    const work = [...items(120, "Slow", { addAIExpenseEstimates: true }), ...items(40, "Plain")];
    const lines = await batch(relay, work);
    expect(lineProblems(lines, work.length)).toEqual([]);
    const outcomes = tally(lines);
    expect(Object.keys(outcomes).filter((o) => o !== "200" && o !== "504 STR_UPSTREAM_TIMEOUT")).toEqual([]);
    const timedOut = lines.filter((l) => l.status === 504);
    expect(timedOut.length).toBeGreaterThan(0);
    expect(timedOut.every((l) => l.index < 120)).toBe(true);
    // The service finishes those calls after the relay stopped waiting, and bills their reports.
    await sandboxQuiet(slow.url);
    let ledger = await relay.relay.store.ledger.rows();
    let epoch = lastEpoch(slowLog);
    const books = expectBooksAgree(ledger, epoch.bills);
    expect(books.unknownCalls).toBe(timedOut.length);
    expect(books.billedUnseen).toBe(timedOut.length);
    const usage = await relay.get("/v1/usage");
    expect(usage.json.today.unknownUSD).toBeCloseTo(books.unknownMaxCents / 100, 6);
    expect(usage.json.today.costUSD).toBeCloseTo(books.relayBilledCents / 100, 6);

    // A re-run sends nothing: answers from the cache, the timed-out ones refused.
    const arrivals = admitted(epoch);
    const again = await batch(relay, work);
    expect(lineProblems(again, work.length)).toEqual([]);
    expect(tally(again)).toEqual({ "200": work.length - timedOut.length, "409 STR_OUTCOME_UNKNOWN": timedOut.length });
    expect(admitted(lastEpoch(slowLog))).toBe(arrivals);

    // With the AI fast again, an explicit refresh of the timed-out items sends each once more (billed again: the user asked).
    await patchFaults(slow.url, { aiTimeoutRate: 0 });
    const refresh = timedOut.map((l) => ({ ...(work[l.index] as object), refresh: true }));
    const refreshed = await batch(relay, refresh);
    expect(tally(refreshed)).toEqual({ "200": refresh.length });
    await sandboxQuiet(slow.url);
    epoch = lastEpoch(slowLog);
    expect(admitted(epoch)).toBe(arrivals + refresh.length);
    ledger = await relay.relay.store.ledger.rows();
    const after = expectBooksAgree(ledger, epoch.bills, refresh.length);
    // Each refreshed request was created once before (the unknown call) and once now.
    const refreshedKeys = new Set(ledger.filter((row) => row.state === "unknown").map((row) => row.cacheKey));
    expect(
      new Set(epoch.bills.filter((b) => refreshedKeys.has(keyOfSubject(b.subject))).map((b) => b.subject)).size,
    ).toBe(refresh.length);
    await expectServing(relay, "SlowAfter");
    report("AI slower than the timeout", {
      items: work.length,
      outcomes,
      refreshed: refresh.length,
      ...summary(after),
      ms: Date.now() - started,
    });
    await slow.kill();
  }, 60_000);

  test("the sandbox killed (SIGKILL) and restarted on the same port mid-batch: in-flight calls unknown, none resent, each life's bill adds up", async () => {
    const started = Date.now();
    const restartLog = path.join(dir, "restart.log");
    const first = await startLoggedSandbox(restartLog, { SANDBOX_TIME_SCALE: "0.01" });
    children.push(first);
    const port = new URL(first.url).port;
    const relay = await freshRelay({}, first.url);
    const work = items(200, "Restart");
    const run = batch(relay, work);
    // Kill it once 50 reports are done, with some 20–30 calls in flight; back 300 ms later.
    await waitFor(() => readSandboxLog(restartLog).at(-1)!.bills.length >= 50, 20_000, "50 reports");
    await first.kill();
    await new Promise((r) => setTimeout(r, 300));
    const second = await startLoggedSandbox(restartLog, { SANDBOX_TIME_SCALE: "0.01", SANDBOX_PORT: port });
    children.push(second);
    expect(second.url).toBe(first.url);
    const lines = await run;
    expect(lineProblems(lines, work.length)).toEqual([]);
    const outcomes = tally(lines);
    expect(Object.keys(outcomes).filter((o) => o !== "200" && o !== "502 STR_UPSTREAM_FAILED")).toEqual([]);
    // Sends while it was down were refused a connection: never sent, so retried.
    const refusedConnections = await relay.relay.metrics.read(relay.relay.metrics.upstreamCalls, {
      status: "UPSTREAM_CONNECT",
    });
    expect(refusedConnections).toBeGreaterThan(0);
    await sandboxQuiet(second.url);

    // The log: the first process's start, its reset by freshRelay, the second process's start.
    const [, life1, life2, ...more] = readSandboxLog(restartLog);
    expect(more).toEqual([]);
    expect(life1!.pid).not.toBe(life2!.pid);
    const ledger = await relay.relay.store.ledger.rows();
    // Both lives' bills together against the ledger: nothing created in both, nothing unaccounted.
    const books = expectBooksAgree(ledger, [...life1!.bills, ...life2!.bills]);
    const unknownKeys = new Set(ledger.filter((row) => row.state === "unknown").map((row) => row.cacheKey));
    expect(unknownKeys.size).toBeGreaterThan(0);
    // Each life on its own: what the relay recorded billed from it ≤ what it billed ≤ that + the unknown calls sent to it.
    const perLife = [life1!, life2!].map((life) => {
      const ids = new Set(life.bills.map((b) => b.analysisId));
      const relayBilled = ledger
        .filter((row) => row.state === "billed" && ids.has(row.analysisId))
        .reduce((s, row) => s + row.cents, 0);
      const sandboxBilled = life.bills.reduce((s, b) => s + b.cents, 0);
      const unseen = life.bills.filter(
        (b) => !ledger.some((row) => row.state === "billed" && row.analysisId === b.analysisId),
      );
      expect(unseen.every((b) => unknownKeys.has(keyOfSubject(b.subject)))).toBe(true);
      expect(relayBilled).toBeLessThanOrEqual(sandboxBilled);
      expect(sandboxBilled).toBe(relayBilled + unseen.reduce((s, b) => s + b.cents, 0));
      return { relayBilled, sandboxBilled, billedUnseen: unseen.length, arrivals: admitted(life) };
    });
    expect(perLife[0]!.sandboxBilled + perLife[1]!.sandboxBilled).toBeLessThanOrEqual(
      books.relayBilledCents + books.unknownMaxCents,
    );
    // Every 502 is either never sent (failed, free) or unknown; the unknown ones were in flight at the kill.
    const failedLines = lines.filter((l) => l.status !== 200);
    const states = lastStateByKey(ledger);
    const stateOfLine = (l: Line) => states.get(keyOfItem(work[l.index]));
    expect(failedLines.map(stateOfLine).filter((s) => s !== "unknown" && s !== "failed")).toEqual([]);

    // A re-run: the unknown ones refused (not resent), the failed ones sent now, the rest from the cache.
    const unknownCount = failedLines.filter((l) => stateOfLine(l) === "unknown").length;
    const notSent = failedLines.length - unknownCount;
    const again = await batch(relay, work);
    expect(lineProblems(again, work.length)).toEqual([]);
    expect(tally(again)).toEqual({
      "200": work.length - unknownCount,
      ...(unknownCount > 0 ? { "409 STR_OUTCOME_UNKNOWN": unknownCount } : {}),
    });
    await sandboxQuiet(second.url);
    const life2After = readSandboxLog(restartLog)[2]!;
    expect(admitted(life2After)).toBe(admitted(life2!) + notSent);
    const final = expectBooksAgree(await relay.relay.store.ledger.rows(), [...life1!.bills, ...life2After.bills]);
    await expectServing(relay, "RestartAfter");
    report("sandbox restart", {
      items: work.length,
      outcomes,
      refusedConnections,
      perLife,
      rerun: tally(again),
      ...summary(final),
      ms: Date.now() - started,
    });
    await second.kill();
  }, 60_000);
});

/** The relay's cache key of a buy batch item (the sandbox's subject, hashed). */
function keyOfItem(item: unknown): string {
  const v = validateRequest("buy", (item as { params: unknown }).params);
  if (!v.ok) throw new Error("invalid test item");
  return keyOfSubject(canonicalRequest("buy", v.value));
}
