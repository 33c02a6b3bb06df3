import http from "node:http";
import fc from "fast-check";
import { RelayCallError, RelayClient } from "../../src/client";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

async function listen(t: TestRelay): Promise<string> {
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
}

async function failure(p: Promise<unknown>): Promise<RelayCallError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RelayCallError) return e;
    throw e;
  }
  throw new Error("expected a RelayCallError");
}

describe("the relay client against a real relay", () => {
  let t: TestRelay;
  let client: RelayClient;
  beforeAll(async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.4" }, { sandbox: { timeScale: 0.01 } });
    client = new RelayClient({ baseUrl: await listen(t), token: TEST_TOKEN });
  });
  afterAll(() => t.close());

  test("an analysis comes back parsed, and a refresh is billed again", async () => {
    const a = await client.analyze("buy", buyBody());
    expect(a.relay).toMatchObject({ cached: false, costUSD: 0.2, sandbox: true });
    expect((await client.analyze("buy", buyBody())).relay.cached).toBe(true);
    const r = await client.analyze("buy", buyBody(), { refresh: true });
    expect(r.relay.cached).toBe(false);
  });

  test("relay errors keep their code, status and fields", async () => {
    const e = await failure(client.analyze("buy", { ...buyBody(), bedrooms: -1 }));
    expect(e).toMatchObject({ code: "STR_VALIDATION", status: 400 });
    expect(e.fields?.[0]?.path).toBe("bedrooms");
    const budget = await failure(client.analyze("buy", buyBody(9)));
    expect(budget).toMatchObject({ code: "STR_BUDGET_EXCEEDED", status: 402 });
    const bad = new RelayClient({ baseUrl: client.baseUrl, token: "wrong-token-0123456789" });
    expect(await failure(bad.usage())).toMatchObject({ code: "STR_UNAUTHORIZED", status: 401 });
  });

  test("a batch streams its lines as items complete", async () => {
    const seen: { index: number; at: number }[] = [];
    const start = Date.now();
    await client.batch(
      [0, 1, 2].map((n) => ({
        strategy: "cohost" as const,
        params: { fullAddress: `${n} Lake Rd, Asheville NC`, bedrooms: 2, bathrooms: 1, accomodates: 4 },
      })),
      { onLine: (line) => seen.push({ index: line.index, at: Date.now() - start }) },
    );
    expect(seen.map((s) => s.index).sort()).toEqual([0, 1, 2]);
  });

  test("a batch says its priority when asked to, and leaves it to the relay otherwise", async () => {
    const bodies: { priority?: string }[] = [];
    const recording = new RelayClient({
      baseUrl: client.baseUrl,
      token: TEST_TOKEN,
      fetch: (input, init) => {
        bodies.push(JSON.parse(String(init?.body)) as { priority?: string });
        return fetch(input, init);
      },
    });
    const items = [{ strategy: "buy" as const, params: buyBody(0) }];
    await recording.batch(items, { onLine: () => undefined, priority: "bulk" });
    await recording.batch(items, { onLine: () => undefined });
    expect(bodies.map((b) => b.priority)).toEqual(["bulk", undefined]);
  });

  test("usage, health and a stored analysis", async () => {
    expect((await client.health()).mode).toBe("sandbox");
    expect((await client.usage()).today.reports).toBeGreaterThanOrEqual(2);
    const a = await client.analyze("buy", buyBody());
    expect((await client.analysis(String(a.data?._id))).data?._id).toBe(a.data?._id);
  });
});

describe("the relay client's own failures", () => {
  test("nothing listening → STR_RELAY_UNREACHABLE naming the URL", async () => {
    const client = new RelayClient({ baseUrl: "http://127.0.0.1:9", token: TEST_TOKEN });
    const e = await failure(client.usage());
    expect(e.code).toBe("STR_RELAY_UNREACHABLE");
    expect(e.message).toContain("http://127.0.0.1:9");
  });

  test("a relay that does not answer in time → STR_RELAY_TIMEOUT; a cancelled call → STR_CANCELLED", async () => {
    const server = http.createServer(() => undefined).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const slow = new RelayClient({ baseUrl: url, token: TEST_TOKEN, timeoutMs: 100 });
      expect((await failure(slow.usage())).code).toBe("STR_RELAY_TIMEOUT");
      const controller = new AbortController();
      const pending = new RelayClient({ baseUrl: url, token: TEST_TOKEN }).usage({ signal: controller.signal });
      controller.abort();
      expect((await failure(pending)).code).toBe("STR_CANCELLED");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("something that is not the relay → STR_RELAY_BAD_ANSWER", async () => {
    const server = http
      .createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>"))
      .listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const client = new RelayClient({
        baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        token: TEST_TOKEN,
      });
      expect((await failure(client.usage())).code).toBe("STR_RELAY_BAD_ANSWER");
    } finally {
      server.close();
    }
  });

  test("a batch answer's lines are read whole however the stream cuts them, multi-byte characters included (200 cuttings)", async () => {
    const answer = (index: number) => ({
      index,
      status: 200,
      body: {
        success: true,
        data: { _id: `id${index}`, fullAddress: `${index} Rue de l’Église, Zürich — ✓` },
        warnings: ["Prix estimé à ±5 %"],
        relay: { cached: true, costUSD: 0, sandbox: true, fetchedAt: "2026-11-23T10:00:00.000Z" },
      },
    });
    const bytes = new TextEncoder().encode(`${[0, 1, 2, 3, 4].map((i) => JSON.stringify(answer(i))).join("\n")}\n`);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        fc.boolean(),
        async (cuts, lastNewline) => {
          const body = lastNewline ? bytes : bytes.subarray(0, bytes.length - 1);
          const at = [0, ...cuts.filter((c) => c < body.length).sort((a, b) => a - b), body.length];
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              for (let i = 1; i < at.length; i++)
                if (at[i] !== at[i - 1]) controller.enqueue(body.slice(at[i - 1], at[i]));
              controller.close();
            },
          });
          const client = new RelayClient({
            baseUrl: "http://relay.test",
            token: TEST_TOKEN,
            fetch: async () =>
              new Response(stream, { status: 200, headers: { "content-type": "application/x-ndjson" } }),
          });
          const seen: unknown[] = [];
          // Lines are matched to the items asked for, by index: five items for the five lines.
          const items = [0, 1, 2, 3, 4].map((n) => ({ strategy: "buy" as const, params: { n } }));
          await client.batch(items, { onLine: (line) => seen.push(line) });
          expect(seen).toEqual([0, 1, 2, 3, 4].map(answer));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("a bad URL or a missing token is refused at once", () => {
    expect(() => new RelayClient({ baseUrl: "relay.example.com", token: TEST_TOKEN })).toThrow(
      /must start with https:\/\//,
    );
    expect(() => new RelayClient({ baseUrl: "https://relay.example.com", token: "" })).toThrow(/No relay token/);
  });
});
