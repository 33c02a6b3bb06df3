import { setTimeout as sleep } from "node:timers/promises";
import { BatchItem, BatchLine, RelayAnswer } from "../../src/contract";
import { RelayClient } from "../../src/client";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/*
 * Money past a batch's deadline, counted: what the service (the sandbox, which bills at creation)
 * billed, what the relay's ledger says, and what the caller was told, to the cent. A batch longer
 * than RELAY_MAX_REQUEST_SECONDS ends with pending lines; the client asks again. Before: the items
 * asked again came back `shared` or `cached` at 0 USD although this caller's calls were billed for
 * them, and a stop after the deadline cancelled nothing (every remaining item was started, tied to
 * an answer already ended).
 */

const ITEMS = 30;
/** Reports of 0.5 to 1.5 s, ten sends a second, a 1-s deadline: a run of 30 crosses it several times. */
const SLOW = { RELAY_MAX_REQUEST_SECONDS: "1", RELAY_UPSTREAM_RPS: "10" };

const items = (from: number): BatchItem[] =>
  Array.from({ length: ITEMS }, (_, i) => ({ strategy: "buy", params: buyBody(from + i) }));

async function listening(t: TestRelay): Promise<RelayClient> {
  return new RelayClient({ baseUrl: await t.listen(), token: TEST_TOKEN });
}

const cents = (usd: number) => Math.round(usd * 100);
const ledgerCents = async (t: TestRelay) => cents((await t.get("/v1/usage")).json.today.costUSD as number);

/** Waits until the sandbox has stopped receiving calls for `quietMs`. */
async function settled(t: TestRelay, quietMs = 2500): Promise<void> {
  for (let last = -1; ;) {
    const now = t.sandboxStats().arrivals;
    if (now === last) return;
    last = now;
    await sleep(quietMs);
  }
}

describe("money past a batch's deadline", () => {
  test("a run across several deadlines: every item is told what its own call cost; bill = ledger = told", async () => {
    const t = await startRelay(SLOW, { sandbox: { timeScale: 0.05 } });
    try {
      const client = await listening(t);
      const lines: BatchLine[] = [];
      await client.batch(items(0), { onLine: (line) => lines.push(line) });
      expect(lines).toHaveLength(ITEMS);
      expect(lines.filter((l) => l.status !== 200).map((l) => JSON.stringify(l.body))).toEqual([]);
      const answers = lines.map((l) => l.body as RelayAnswer);
      // Thirty different properties, each bought once for this caller: none cached, none shared.
      expect(answers.filter((a) => a.relay.cached || a.relay.shared)).toHaveLength(0);
      const told = answers.reduce((sum, a) => sum + cents(a.relay.costUSD), 0);
      expect(t.sandboxStats().reports).toBe(ITEMS);
      expect(t.sandboxStats().billedCents).toBe(ITEMS * 20);
      expect(await ledgerCents(t)).toBe(ITEMS * 20);
      expect(told).toBe(ITEMS * 20);
    } finally {
      await t.close();
    }
  }, 60_000);

  test("Ctrl-C after a deadline: nothing more is sent; bill = ledger, and what was told is within it", async () => {
    const t = await startRelay(SLOW, { sandbox: { timeScale: 0.05 } });
    try {
      const client = await listening(t);
      const controller = new AbortController();
      const lines: BatchLine[] = [];
      const run = client.batch(items(100), { signal: controller.signal, onLine: (line) => lines.push(line) });
      // Past the first deadline (1 s), with the pending items asked for again.
      await sleep(1800);
      controller.abort();
      await expect(run).rejects.toMatchObject({ code: "STR_CANCELLED" });
      const sentAtStop = t.sandboxStats().arrivals;
      await settled(t);
      // Calls already on their way may still land; none is started after the stop. Ten sends a
      // second would have sent everything left in the 2.5 s of quiet.
      expect(t.sandboxStats().arrivals - sentAtStop).toBeLessThanOrEqual(1);
      expect(t.sandboxStats().reports).toBeLessThan(ITEMS);
      expect(t.sandboxStats().billedCents).toBe(await ledgerCents(t));
      const told = lines.reduce((sum, l) => sum + cents((l.body as RelayAnswer).relay?.costUSD ?? 0), 0);
      expect(told).toBeLessThanOrEqual(t.sandboxStats().billedCents);
    } finally {
      await t.close();
    }
  }, 60_000);

  test("a caller that never asks again: its calls not sent yet are dropped when their lease runs out", async () => {
    const t = await startRelay(SLOW, { sandbox: { timeScale: 0.05 }, config: { pendingLeaseMs: 500 } });
    try {
      // Over a real connection, kept open afterwards as a client's keep-alive pool keeps it.
      const client = await listening(t);
      const answer = await fetch(`${client.baseUrl}/v1/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ items: items(200) }),
      });
      const statuses = (await answer.text())
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { status: number }).status);
      expect(statuses.filter((s) => s === 202).length).toBeGreaterThan(ITEMS / 2);
      // Ten sends a second for the 1 s of answer and the 0.5 s of lease, give or take the checks.
      await settled(t);
      expect(t.sandboxStats().arrivals).toBeLessThanOrEqual(20);
      expect(t.sandboxStats().billedCents).toBe(await ledgerCents(t));
    } finally {
      await t.close();
    }
  }, 60_000);

  test("asked again within the lease, the same calls go on and are told once: no call twice, nothing lost", async () => {
    const t = await startRelay(SLOW, { sandbox: { timeScale: 0.05 } });
    try {
      const first = await t.post("/v1/batch", { items: items(300) });
      const pending = first.text
        .trim()
        .split("\n")
        .map(
          (l) =>
            JSON.parse(l) as { index: number; status: number; body: { call?: string; relay?: { costUSD: number } } },
        );
      const again = pending.filter((l) => l.status === 202);
      expect(again.length).toBeGreaterThan(0);
      const second = await t.post("/v1/batch", {
        items: again.map((l) => ({ ...items(300)[l.index], ...(l.body.call ? { call: l.body.call } : {}) })),
      });
      // The second answer may again end at its deadline: ask until nothing is pending.
      let told = pending.filter((l) => l.status === 200).reduce((s, l) => s + cents(l.body.relay?.costUSD ?? 0), 0);
      let round = second.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as (typeof pending)[number]);
      let asked = again;
      while (round.some((l) => l.status === 202)) {
        told += round.filter((l) => l.status === 200).reduce((s, l) => s + cents(l.body.relay?.costUSD ?? 0), 0);
        const next = round.filter((l) => l.status === 202).map((l) => ({ at: asked[l.index]!, line: l }));
        asked = next.map((n) => n.at);
        const r = await t.post("/v1/batch", {
          items: next.map((n) => ({
            ...items(300)[n.at.index],
            ...(n.line.body.call ? { call: n.line.body.call } : {}),
          })),
        });
        round = r.text
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as (typeof pending)[number]);
      }
      told += round.filter((l) => l.status === 200).reduce((s, l) => s + cents(l.body.relay?.costUSD ?? 0), 0);
      await settled(t, 1000);
      expect(t.sandboxStats().duplicates).toBe(0);
      expect(t.sandboxStats().reports).toBe(ITEMS);
      expect(await ledgerCents(t)).toBe(ITEMS * 20);
      expect(told).toBe(ITEMS * 20);
    } finally {
      await t.close();
    }
  }, 60_000);
});
