import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BatchItem, JOB_PAGE_SIZE } from "../../src/contract";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/*
 * Jobs (POST /v1/jobs), Power Automate's asynchronous pattern, through the real relay and its
 * sandbox, which counts what it was sent and billed: started at once, polled to their results in
 * the items' order, a page at a time; cancelled, they send nothing more; they outlive their relay,
 * are their caller's alone and expire.
 */

const items = (n: number, from = 0): BatchItem[] =>
  Array.from({ length: n }, (_, i) => ({ strategy: "buy", params: buyBody(from + i) }));

/** Polls the job as a flow would, until it answers 200; every 202 on the way carries Location and Retry-After. */
async function pollDone(t: TestRelay, id: string, limitMs = 60_000) {
  const until = Date.now() + limitMs;
  for (;;) {
    const answer = await t.get(`/v1/jobs/${id}`);
    if (answer.status !== 202) return answer;
    expect(answer.headers.location).toBe(`http://localhost:8787/v1/jobs/${id}`);
    expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    if (Date.now() > until) throw new Error(`job ${id} still running: ${JSON.stringify(answer.json)}`);
    await sleep(100);
  }
}

/** Waits until the sandbox has received no call for `quietMs`. */
async function settled(t: TestRelay, quietMs = 2500): Promise<void> {
  for (let last = -1; ;) {
    const now = t.sandboxStats().arrivals;
    if (now === last) return;
    last = now;
    await sleep(quietMs);
  }
}

const ledgerCents = async (t: TestRelay) => Math.round(((await t.get("/v1/usage")).json.today.costUSD as number) * 100);

describe("jobs", () => {
  test("a 300-item job answers 202 at once, and is polled to 200 with 300 results in the items' order", async () => {
    const t = await startRelay();
    try {
      const answer = await t.post("/v1/jobs", { items: items(300) });
      expect(answer.status).toBe(202);
      const id = answer.json.jobId as string;
      expect(answer.json).toEqual({ jobId: id, status: "running", progress: { done: expect.any(Number), total: 300 } });
      // At once: while most of the 300 sends, at 100 a second, are still to come, however slow the machine.
      expect(answer.json.progress.done).toBeLessThan(150);
      expect(answer.headers.location).toBe(`http://localhost:8787/v1/jobs/${id}`);
      expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      const done = await pollDone(t, id);
      expect(done.status).toBe(200);
      expect(done.json).toMatchObject({ jobId: id, status: "done", progress: { done: 300, total: 300 } });
      expect(done.json.next).toBeUndefined();
      expect(Date.parse(done.json.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      const results = done.json.results as { success: boolean; data: { fullAddress: string } }[];
      expect(results).toHaveLength(300);
      expect(results.map((r) => r.data.fullAddress)).toEqual(
        items(300).map((i) => (i.params as { fullAddress: string }).fullAddress),
      );
      expect(t.sandboxStats().reports).toBe(300);
      expect(t.sandboxStats().duplicates).toBe(0);
      expect(await ledgerCents(t)).toBe(300 * 20);
    } finally {
      await t.close();
    }
  }, 90_000);

  test("a large job's results come in pages: next, then ?cursor=next, until there is none", async () => {
    const t = await startRelay();
    try {
      // 520 items over 13 properties: 13 calls, each shared by its 40 items.
      const body = { items: Array.from({ length: 520 }, (_, i) => ({ strategy: "buy", params: buyBody(i % 13) })) };
      const id = (await t.post("/v1/jobs", body)).json.jobId as string;
      const first = await pollDone(t, id);
      expect(first.json.results).toHaveLength(JOB_PAGE_SIZE);
      expect(first.json.next).toBe(String(JOB_PAGE_SIZE));
      const second = await t.get(`/v1/jobs/${id}?cursor=${first.json.next}`);
      expect(second.status).toBe(200);
      expect(second.json.results).toHaveLength(20);
      expect(second.json.next).toBeUndefined();
      const all = [...first.json.results, ...second.json.results] as { data: { fullAddress: string } }[];
      expect(all.map((r) => r.data.fullAddress)).toEqual(body.items.map((i) => i.params.fullAddress));
      expect(t.sandboxStats().reports).toBe(13);
      const bad = await t.get(`/v1/jobs/${id}?cursor=7`);
      expect(bad.status).toBe(400);
      expect(bad.json.error.fields[0].path).toBe("cursor");
    } finally {
      await t.close();
    }
  }, 90_000);

  test("a cancelled job stops spending: nothing is sent after DELETE answers but calls already on their way", async () => {
    const t = await startRelay({ RELAY_UPSTREAM_RPS: "10" }, { sandbox: { timeScale: 0.02 } });
    try {
      const id = (await t.post("/v1/jobs", { items: items(300, 1000) })).json.jobId as string;
      while (t.sandboxStats().arrivals < 5) await sleep(50);
      const cancelled = await t.relay.app.inject({
        method: "DELETE",
        url: `/v1/jobs/${id}`,
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      });
      const sentAtCancel = t.sandboxStats().arrivals;
      expect(cancelled.statusCode).toBe(200);
      const job = cancelled.json();
      expect(job).toMatchObject({ jobId: id, status: "cancelled", progress: { total: 300 } });
      expect(job.results).toHaveLength(300);
      // Every result reads alike: an analysis, or an error; those the cancel left, STR_CANCELLED.
      const results = job.results as { success: boolean; error?: { code: string } }[];
      const left = results.filter((r) => r.error?.code === "STR_CANCELLED");
      expect(results.length - left.length).toBe(job.progress.done);
      expect(left.length).toBeGreaterThan(0);
      // Ten sends a second would have sent 25 more in the 2.5 s of quiet.
      await settled(t);
      expect(t.sandboxStats().arrivals - sentAtCancel).toBeLessThanOrEqual(1);
      expect(t.sandboxStats().reports).toBeLessThan(60);
      expect(t.sandboxStats().billedCents).toBe(await ledgerCents(t));
      // It stays cancelled, with what finished.
      const later = await t.get(`/v1/jobs/${id}`);
      expect(later.status).toBe(200);
      expect(later.json.status).toBe("cancelled");
    } finally {
      await t.close();
    }
  }, 90_000);

  test("another token is told there is no such job, for GET and DELETE; its own caller still reads it", async () => {
    const other = "other-token-0123456789abcdef";
    const t = await startRelay({ RELAY_TOKENS: `${TEST_TOKEN},${other}` });
    try {
      const id = (await t.post("/v1/jobs", { items: items(2) })).json.jobId as string;
      for (const method of ["GET", "DELETE"] as const) {
        const answer = await t.relay.app.inject({
          method,
          url: `/v1/jobs/${id}`,
          headers: { authorization: `Bearer ${other}` },
        });
        expect(answer.statusCode).toBe(404);
        expect(answer.json().error.code).toBe("STR_NOT_FOUND");
      }
      expect((await pollDone(t, id)).json.status).toBe("done");
      expect((await t.get("/v1/jobs/00000000-0000-4000-8000-000000000000")).status).toBe(404);
      expect((await t.get("/v1/jobs/not-a-job")).json.error.fields[0].path).toBe("id");
    } finally {
      await t.close();
    }
  });

  test("a job outlives its relay: the next start resumes it, and no item is bought twice", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-jobs-restart-"));
    const env = { RELAY_UPSTREAM_RPS: "20" };
    const first = await startRelay(env, { dataDir });
    let id: string;
    let firstReports: number;
    try {
      id = (await first.post("/v1/jobs", { items: items(60, 2000) })).json.jobId as string;
      while (first.sandboxStats().arrivals < 10) await sleep(50);
    } finally {
      await first.close();
      firstReports = first.sandboxStats().reports;
    }
    expect(firstReports).toBeLessThan(60);
    const second = await startRelay(env, { dataDir });
    try {
      const done = await pollDone(second, id);
      expect(done.json.status).toBe("done");
      const results = done.json.results as { success: boolean; relay: { costUSD: number } }[];
      expect(results.filter((r) => r.success)).toHaveLength(60);
      // The calls the first relay sent were answered from the cache: the two sandboxes billed 60 reports in all.
      expect(firstReports + second.sandboxStats().reports).toBe(60);
      expect(await ledgerCents(second)).toBe(60 * 20);
      // Each item is told what its call cost, whichever relay made it: the job's results add up to the bill.
      expect(results.reduce((sum, r) => sum + Math.round(r.relay.costUSD * 100), 0)).toBe(60 * 20);
      // The job keeps each item's call name, so a run resumed after a crash asks for the same calls
      // (one made before is then told with its cost, not as cached: money/deadline.test).
      const work = await second.relay.store.jobs.work(id);
      const calls = (work?.items as { call?: string }[]).map((item) => item.call);
      expect(new Set(calls).size).toBe(60);
      for (const call of calls) expect(call).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await second.close();
    }
  }, 90_000);

  test("a job whose runner died (its lease ran out) is resumed by the next heartbeat, without a GET", async () => {
    const t = await startRelay({}, { heartbeatMs: 100 });
    try {
      const id = "5f0c3a2e-0000-4000-8000-00000000dead";
      const callerId = t.relay.callers.idOf(TEST_TOKEN);
      const store = t.relay.store.jobs;
      await store.create({
        id,
        callerId,
        items: items(5, 3000),
        options: { priority: "bulk" },
        runner: "gone",
        leaseMs: 1,
      });
      for (let i = 0; i < 100 && (await store.get(id, callerId))?.status !== "done"; i++) await sleep(100);
      expect((await store.get(id, callerId))?.status).toBe("done");
      expect(t.sandboxStats().reports).toBe(5);
    } finally {
      await t.close();
    }
  });

  test("a job expires its time after it is done: then 404, and the sweep forgets it", async () => {
    const t = await startRelay({}, { heartbeatMs: 100, config: { jobTtlMs: 500 } });
    try {
      const id = (await t.post("/v1/jobs", { items: items(2) })).json.jobId as string;
      expect((await pollDone(t, id)).status).toBe(200);
      await sleep(1000);
      expect((await t.get(`/v1/jobs/${id}`)).status).toBe(404);
      expect(await t.relay.store.jobs.work(id)).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  test("a dry run prices the job like a batch's and starts nothing; a bad body is refused like a batch's", async () => {
    const t = await startRelay();
    try {
      const priced = await t.post("/v1/jobs", { items: items(3), dryRun: true });
      expect(priced.status).toBe(200);
      expect(priced.json).toMatchObject({ items: 3, toCreate: 3, estimatedCostUSD: 0.6 });
      const bad = await t.post("/v1/jobs", { items: [] });
      expect(bad.status).toBe(400);
      expect(bad.json.error.fields[0].path).toBe("items");
      await sleep(300);
      expect(t.sandboxStats().arrivals).toBe(0);
    } finally {
      await t.close();
    }
  });

  test("a job obeys the budget: items past it fail alone, with the batch's error", async () => {
    const t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "1" });
    try {
      const id = (await t.post("/v1/jobs", { items: items(8, 4000) })).json.jobId as string;
      const results = (await pollDone(t, id)).json.results as { success: boolean; error?: { code: string } }[];
      expect(results.filter((r) => r.success)).toHaveLength(5);
      expect(results.filter((r) => r.error?.code === "STR_BUDGET_EXCEEDED")).toHaveLength(3);
      expect(t.sandboxStats().reports).toBe(5);
    } finally {
      await t.close();
    }
  });
});
