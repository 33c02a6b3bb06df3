import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

describe("identical requests in flight share one upstream call", () => {
  let t: TestRelay;
  beforeEach(async () => {
    // Each report takes 300 ms, so the calls below overlap.
    t = await startRelay({}, { sandbox: { timeScale: 0.015 } });
  });
  afterEach(() => t.close());

  test("8 identical concurrent calls → 1 upstream call, 1 bill, 8 identical analyses", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.post(BUY_PATH, buyBody())));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.json.data._id)).size).toBe(1);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, reports: 1, billedCents: 20 });
    // The one that started the call carries its cost; the seven that joined it paid nothing.
    const costs = answers.map((a) => a.json.relay.costUSD).sort();
    expect(costs).toEqual([0, 0, 0, 0, 0, 0, 0, 0.2]);
    expect(answers.filter((a) => a.json.relay.shared === true)).toHaveLength(7);
  });

  test("a refresh during an identical call in flight joins it rather than billing twice", async () => {
    const [a, b] = await Promise.all([
      t.post(BUY_PATH, buyBody()),
      t.post(BUY_PATH, buyBody(), { "cache-control": "no-cache" }),
    ]);
    expect(a.json.data._id).toBe(b.json.data._id);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("different requests in flight do not share", async () => {
    const answers = await Promise.all([0, 1, 2].map((n) => t.post(BUY_PATH, buyBody(n))));
    expect(new Set(answers.map((a) => a.json.data._id)).size).toBe(3);
    expect(t.sandboxStats().arrivals).toBe(3);
  });
});
