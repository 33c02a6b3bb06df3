import { setTimeout as sleep } from "node:timers/promises";
import {
  Child,
  SharedUrls,
  buyParams,
  describeShared,
  dropNamespace,
  ensureBuilt,
  resetSandbox,
  runBatch,
  sandboxStats,
  startReplica,
  startSandboxProcess,
  testNamespace,
  waitFor,
} from "../support/scale";

/*
 * Two replicas, one account, a paused replica: A holds the locks of a long queue and is stopped
 * (SIGSTOP) past three heartbeats, so its locks lapse; B is asked for the same rows and takes them
 * over; then A runs on (SIGCONT). A must not send what B sent or answered: before the fence, a
 * replica that resumed sent from its queue without checking it still held the lock (9 reports
 * bought for 8 rows). Counted by the sandbox process, which bills as the service does.
 */
const ROWS = 12;
// Five sends a second: the queue outlives the pause. Heartbeats of 0.2 s: A's locks lapse in 0.6 s.
const ENV = { RELAY_UPSTREAM_RPS: "5", RELAY_HEARTBEAT_SECONDS: "0.2" };
const items = () => Array.from({ length: ROWS }, (_, i) => ({ strategy: "buy", params: buyParams(i, "Pause") }));

describeShared("a replica paused past its locks' lease", (urls: SharedUrls) => {
  let sandbox: Child;
  let a: Child;
  let b: Child;
  const ns = testNamespace("pause");

  beforeAll(async () => {
    ensureBuilt();
    sandbox = await startSandboxProcess({ SANDBOX_TIME_SCALE: "0.01" });
    [a, b] = await Promise.all([startReplica(urls, ns, sandbox.url, ENV), startReplica(urls, ns, sandbox.url, ENV)]);
  }, 90_000);
  afterAll(async () => {
    a?.process.kill("SIGCONT");
    await Promise.all([a?.stop(), b?.stop()]);
    await sandbox?.stop();
    await dropNamespace(urls, ns);
  });

  test("resumed, it sends nothing another replica took over: each row bought once", async () => {
    await resetSandbox(sandbox.url);
    const onA = runBatch(a.url, items());
    await waitFor(async () => (await sandboxStats(sandbox.url)).arrivals >= 2, 20_000, "A's first sends");
    a.process.kill("SIGSTOP");
    try {
      // Past three of A's heartbeats: its locks lapse, and B takes the same rows over.
      await sleep(1500);
      const onB = await runBatch(b.url, items());
      expect(onB.lines).toHaveLength(ROWS);
    } finally {
      a.process.kill("SIGCONT");
    }
    await onA;
    // Let A's queue drain (it has nothing left to send, or sends it now if unfenced).
    await sleep(3000);
    const stats = await sandboxStats(sandbox.url);
    expect(stats.duplicateCreates).toBe(0);
    expect(stats.billing.reports).toBeLessThanOrEqual(ROWS);
  }, 90_000);
});
