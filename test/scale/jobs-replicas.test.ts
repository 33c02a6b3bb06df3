import { setTimeout as sleep } from "node:timers/promises";
import { BatchItem } from "../../src/contract";
import { pacingRule } from "../../src/relay/pacing/pacer";
import { RedisPacer } from "../../src/relay/pacing/redis-pacer";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";
import {
  SharedUrls,
  describeShared,
  dropNamespace,
  listeningSandbox,
  openTestStore,
  testNamespace,
} from "../support/scale";

/*
 * Jobs on the shared store (Postgres, migration 4): any replica answers a job's GET; a job whose
 * replica stopped is resumed by another without buying an item twice; a DELETE on one replica stops
 * the run on another; pages, another token's 404 and expiry hold as on SQLite (test/relay/jobs.test.ts).
 * The replicas call one sandbox in live mode, which counts every create whoever sent it.
 */

const KEY = "sk_jobs_replicas_test_0123456789";
const OTHER = "rt_other_0123456789abcdef01";
const items = (n: number, from = 0): BatchItem[] =>
  Array.from({ length: n }, (_, i) => ({ strategy: "buy", params: buyBody(from + i) }));

describeShared("jobs across replicas (Redis + Postgres)", (urls: SharedUrls) => {
  let ns: string;
  let sandbox: Sandbox;
  let sandboxUrl: string;
  const relays: TestRelay[] = [];

  const replica = async (env: Record<string, string> = {}, config = {}): Promise<TestRelay> => {
    const store = await openTestStore(urls, ns);
    const rps = Number(env.RELAY_UPSTREAM_RPS ?? 100);
    const relay = await startRelay(
      { STR_API_KEY: KEY, STR_API_BASE_URL: sandboxUrl, RELAY_TOKENS: `${TEST_TOKEN},${OTHER}`, ...env },
      { store, pacer: new RedisPacer(store.redis, pacingRule(rps), ns), heartbeatMs: 200, config },
    );
    relays.push(relay);
    return relay;
  };
  const creates = () => sandbox.state.arrivals.length;
  const reports = () => sandbox.state.totals().reports;

  async function pollDone(t: TestRelay, id: string) {
    for (let i = 0; i < 600; i++) {
      const answer = await t.get(`/v1/jobs/${id}`);
      if (answer.status !== 202) return answer;
      await sleep(100);
    }
    throw new Error(`job ${id} still running`);
  }

  beforeEach(async () => {
    ns = testNamespace("jobs");
    ({ sandbox, url: sandboxUrl } = await listeningSandbox(KEY));
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.close()));
    await sandbox.app.close();
    await dropNamespace(urls, ns);
  });

  test("a job started on one replica is read on another, in pages, and is its token's alone", async () => {
    const [a, b] = [await replica(), await replica()];
    const body = { items: Array.from({ length: 520 }, (_, i) => ({ strategy: "buy", params: buyBody(i % 13) })) };
    const id = (await a.post("/v1/jobs", body)).json.jobId as string;
    const other = await b.relay.app.inject({ url: `/v1/jobs/${id}`, headers: { authorization: `Bearer ${OTHER}` } });
    expect(other.statusCode).toBe(404);
    const first = await pollDone(b, id);
    expect(first.json).toMatchObject({ status: "done", progress: { done: 520, total: 520 }, next: "500" });
    const second = await b.get(`/v1/jobs/${id}?cursor=500`);
    const all = [...first.json.results, ...second.json.results] as { data: { fullAddress: string } }[];
    expect(all.map((r) => r.data.fullAddress)).toEqual(body.items.map((i) => i.params.fullAddress));
    expect(reports()).toBe(13);
  }, 60_000);

  test("a replica that stops mid-job: another resumes it at its GET, and no item is bought twice", async () => {
    const slow = { RELAY_UPSTREAM_RPS: "20" };
    const [a, b] = [await replica(slow), await replica(slow)];
    const id = (await a.post("/v1/jobs", { items: items(60, 500) })).json.jobId as string;
    while (creates() < 10) await sleep(50);
    await a.close();
    const done = await pollDone(b, id);
    expect(done.json.status).toBe("done");
    expect((done.json.results as { success: boolean }[]).filter((r) => r.success)).toHaveLength(60);
    expect(reports()).toBe(60);
    expect(sandbox.state.duplicateCreates()).toBe(0);
  }, 60_000);

  test("DELETE on one replica stops the run on another at its next heartbeat", async () => {
    const slow = { RELAY_UPSTREAM_RPS: "10" };
    const [a, b] = [await replica(slow), await replica(slow)];
    const id = (await a.post("/v1/jobs", { items: items(300, 1000) })).json.jobId as string;
    while (creates() < 5) await sleep(50);
    const cancelled = await b.relay.app.inject({
      method: "DELETE",
      url: `/v1/jobs/${id}`,
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().status).toBe("cancelled");
    const atCancel = creates();
    // A's next beat (200 ms) stops it; ten sends a second would send 25 more in the 2.5 s after.
    await sleep(2500);
    expect(creates() - atCancel).toBeLessThanOrEqual(4);
    expect((await b.get(`/v1/jobs/${id}`)).json.status).toBe("cancelled");
  }, 60_000);

  test("a job expires its time after it is done, and the sweep forgets it", async () => {
    const a = await replica({}, { jobTtlMs: 500 });
    const id = (await a.post("/v1/jobs", { items: items(2, 2000) })).json.jobId as string;
    expect((await pollDone(a, id)).status).toBe(200);
    await sleep(1200);
    expect((await a.get(`/v1/jobs/${id}`)).status).toBe(404);
    expect(await a.relay.store.jobs.work(id)).toBeUndefined();
  }, 30_000);
});
