import { FORMULA_BATCH_MAX_ITEMS } from "../../src/contract";
import { AcquireOptions, LocalPacer, Pacer, Slot, pacingRule } from "../../src/relay/pacing/pacer";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/** A local pacer that records whose turn, and at what priority, each send slot was asked for. */
class RecordingPacer implements Pacer {
  readonly asked: AcquireOptions[] = [];
  readonly #inner = new LocalPacer(pacingRule(100_000));
  readonly slotLifetimeMs = this.#inner.slotLifetimeMs;
  get waiting(): number {
    return this.#inner.waiting;
  }
  acquire(signal?: AbortSignal, options: AcquireOptions = {}): Promise<Slot> {
    this.asked.push(options);
    return this.#inner.acquire(signal, options);
  }
  throttled(until: number): void {
    this.#inner.throttled(until);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

describe("each request's place in its caller's turn for send slots", () => {
  let t: TestRelay;
  let pacer: RecordingPacer;
  let caller = "";
  beforeEach(async () => {
    pacer = new RecordingPacer();
    t = await startRelay({}, { pacer });
    caller = t.relay.callers.idOf(TEST_TOKEN);
  });
  afterEach(() => t.close());

  test("a single analysis is a formula request of its token's caller unless X-Relay-Priority says bulk", async () => {
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
    expect((await t.post(BUY_PATH, buyBody(2), { "x-relay-priority": "bulk" })).status).toBe(200);
    expect(pacer.asked).toEqual([
      { caller, priority: "formula" },
      { caller, priority: "bulk" },
    ]);
  });

  test("a bad X-Relay-Priority is refused with 400 naming the header, and nothing is sent", async () => {
    const r = await t.post(BUY_PATH, buyBody(1), { "x-relay-priority": "urgent" });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("STR_BAD_REQUEST");
    expect(r.json.error.fields).toEqual([
      { path: "headers.x-relay-priority", message: 'must be "formula" or "bulk"; got "urgent"' },
    ]);
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test(`a batch is formula up to ${FORMULA_BATCH_MAX_ITEMS} items and bulk above, unless its priority field says`, async () => {
    const items = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({ strategy: "buy", params: buyBody(from + i) }));
    const priorities = async (body: object) => {
      pacer.asked.length = 0;
      expect((await t.post("/v1/batch", body)).status).toBe(200);
      // Renewals of a slot that aged (first) are not a new turn: they go ahead of every caller.
      return [...new Set(pacer.asked.filter((a) => !a.first).map((a) => `${a.caller}:${a.priority}`))];
    };
    expect(await priorities({ items: items(FORMULA_BATCH_MAX_ITEMS, 0) })).toEqual([`${caller}:formula`]);
    expect(await priorities({ items: items(FORMULA_BATCH_MAX_ITEMS + 1, 100) })).toEqual([`${caller}:bulk`]);
    expect(await priorities({ items: items(60, 200), priority: "formula" })).toEqual([`${caller}:formula`]);
    expect(await priorities({ items: items(2, 300), priority: "bulk" })).toEqual([`${caller}:bulk`]);
  });

  test("a batch with a bad priority is refused with 400 naming the field", async () => {
    const r = await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(1) }], priority: "now" });
    expect(r.status).toBe(400);
    expect(r.json.error.fields).toEqual([{ path: "priority", message: 'must be "formula" or "bulk"; got "now"' }]);
  });
});
