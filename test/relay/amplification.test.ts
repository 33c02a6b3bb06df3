import { MAX_FIELD_ISSUES } from "../../src/contract";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * A legal body can be made of many unknown fields: 700,000 of them fit the body limit. The answer
 * names a few and says how many more; no log line grows with the body; the relay goes on answering.
 */
const FIELDS = 700_000;
const manyFields = (extra: Record<string, unknown> = {}) => {
  const parts = Array.from({ length: FIELDS }, (_, i) => `"f${i}":1`);
  const own = Object.entries(extra).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{${[...own, ...parts].join(",")}}`;
};

describe("a body of 700,000 unknown fields gets a short answer", () => {
  let t: TestRelay;
  let base = "";
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  const send = (path: string, body: string) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
      body,
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  test("one request: a 400 naming at most the first fields and how many more, and log lines as short", async () => {
    const body = manyFields(buyBody());
    expect(body.length).toBeGreaterThan(7 * 1024 * 1024);
    const r = await send(BUY_PATH, body);
    expect(r.status).toBe(400);
    expect(r.text.length).toBeLessThan(16 * 1024);
    const error = JSON.parse(r.text).error as { code: string; fields: { path: string; message: string }[] };
    expect(error.code).toBe("STR_VALIDATION");
    expect(error.fields).toHaveLength(MAX_FIELD_ISSUES + 1);
    expect(error.fields[0]).toEqual({ path: "f0", message: "is not a field of this request" });
    expect(error.fields.at(-1)).toEqual({
      path: "",
      message: `and ${(FIELDS - MAX_FIELD_ISSUES).toLocaleString("en-US")} more`,
    });
    expect(t.logs.length).toBeGreaterThan(0);
    expect(Math.max(...t.logs.map((l) => l.length))).toBeLessThan(16 * 1024);
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test("a batch item of 700,000 fields, and a field name the size of the body, are named as briefly", async () => {
    const item = `{"items":[{"strategy":"buy","params":${manyFields(buyBody(1))}}]}`;
    const r = await send("/v1/batch", item);
    expect(r.text.length).toBeLessThan(16 * 1024);
    const longName = await send(BUY_PATH, JSON.stringify({ ...buyBody(2), ["x".repeat(7 * 1024 * 1024)]: 1 }));
    expect(longName.status).toBe(400);
    expect(longName.text.length).toBeLessThan(4 * 1024);
    expect(Math.max(...t.logs.map((l) => l.length))).toBeLessThan(16 * 1024);
  });

  test("four such bodies at once are refused, and the relay answers /healthz meanwhile and after", async () => {
    const body = manyFields(buyBody(3));
    const all = Promise.all([1, 2, 3, 4].map(() => send(BUY_PATH, body)));
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    const answers = await all;
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // Four 7.9 MiB bodies to parse: room for a machine busy with other work.
  }, 120_000);
});
