import fc from "fast-check";
import {
  BatchItem,
  BatchLine,
  DryRunAnswer,
  HealthAnswer,
  OPERATIONS,
  OPERATION_PATHS,
  Operation,
  RelayAnswer,
  UsageAnswer,
  idField,
  validateRequest,
} from "../../src/contract";
import { Answer, answerOf } from "../support/inject";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import {
  Counter,
  Entries,
  RawJson,
  Tally,
  familiarBody,
  fcOptions,
  isPoisoned,
  junkKey,
  junkValue,
  mutatedBody,
  objectText,
  runs,
  statusProblems,
  tryParse,
  validBody,
} from "./support";

/**
 * Property-based fuzzing of every relay route, on a real relay and its real embedded sandbox.
 * Generated bodies, ids, headers and paths must only ever get 200 or a 4xx in the relay's JSON
 * error shape — never a 5xx — and nothing the contract refuses may reach the service (the
 * sandbox counts every request it receives). Each property prints how many cases it tried.
 */

const AUTH = { authorization: `Bearer ${TEST_TOKEN}` };
const tally = new Tally("relay fuzzing (fast-check):");

describe("fuzzing every relay route", () => {
  let t: TestRelay;
  const storedIds: string[] = [];

  beforeAll(async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "1000000" });
    // A few real analyses, for the GET /v1/analyses/:id properties.
    for (const body of [
      { fullAddress: "12 Main St, Austin TX", purchasePriceUSD: 450000, bedrooms: 3, bathrooms: 2, accomodates: 8 },
    ]) {
      const r = await t.post(OPERATION_PATHS.buy, body);
      storedIds.push(r.json.data._id as string);
    }
  });
  afterAll(async () => {
    await t.close();
    tally.print();
  });

  async function send(
    method: string,
    url: string,
    payload?: string | Buffer,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return answerOf(
      await t.relay.app.inject({
        method: method as "GET",
        url,
        ...(payload !== undefined ? { payload } : {}),
        headers: { ...AUTH, ...headers },
      }),
    );
  }

  const arrivals = () => t.sandboxStats().arrivals;

  /** Sends one JSON text to an analysis route and checks the answer against the contract's validator. */
  async function checkAnalysisRoute(
    op: Operation,
    text: string,
    count: Counter,
    headers: Record<string, string> = {},
  ): Promise<void> {
    count.tried++;
    const before = arrivals();
    const r = await send("POST", OPERATION_PATHS[op], text, { "content-type": "application/json", ...headers });
    const sent = arrivals() - before;
    expect(statusProblems(r.status, r.json, r.text)).toEqual([]);
    const parsed = tryParse(text);
    if (!parsed.ok || text.trim() === "") {
      count.add("not JSON → 400");
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("STR_BAD_REQUEST");
      expect(sent).toBe(0);
      return;
    }
    if (isPoisoned(parsed.value)) {
      // fastify's JSON parser refuses prototype poisoning before any route runs.
      count.add("prototype poisoning → 400");
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("STR_BAD_REQUEST");
      expect(sent).toBe(0);
      return;
    }
    const oracle = validateRequest(op, parsed.value);
    if (!oracle.ok) {
      count.add("invalid → 400");
      expect({ status: r.status, code: r.json?.error?.code }).toEqual({ status: 400, code: "STR_VALIDATION" });
      // The relay names exactly the fields the contract's validator names, and the message names them too.
      expect(r.json.error.fields).toEqual(oracle.issues);
      for (const issue of oracle.issues) expect(r.json.error.message).toContain(issue.path);
      expect(sent).toBe(0);
      return;
    }
    count.add(`valid → ${r.status}`);
    count.add("upstream calls", sent);
    expect(sent).toBeLessThanOrEqual(1);
    if (r.status === 200) expect(RelayAnswer.safeParse(r.json).success).toBe(true);
  }

  test.each(OPERATIONS.map((op) => [op]))(
    `POST %s: ${runs(200)} arbitrary JSON bodies (fc.jsonValue, fc.anything) → 400 naming fields, nothing sent`,
    async (op) => {
      const count = tally.start(`POST ${OPERATION_PATHS[op]} arbitrary JSON`);
      const anyText = fc.oneof(
        { weight: 3, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.anything({ maxDepth: 2, withBigInt: false }).map((v) => JSON.stringify(v) ?? "") },
        {
          weight: 2,
          arbitrary: fc
            .dictionary(
              fc.oneof(
                junkKey,
                fc.constantFrom("fullAddress", "lat", "lng", "bedrooms", "bathrooms", "accomodates", "analysisId"),
              ),
              junkValue,
              { maxKeys: 6 },
            )
            .map((d) => objectText(Object.entries(d) as Entries)),
        },
      );
      await fc.assert(
        fc.asyncProperty(anyText, (text) => checkAnalysisRoute(op, text, count)),
        fcOptions(runs(200)),
      );
      count.done("bodies");
    },
  );

  test.each(OPERATIONS.map((op) => [op]))(
    `POST %s: ${runs(300)} near-valid bodies (one field broken) → only 200 or 400, nothing invalid sent`,
    async (op) => {
      const count = tally.start(`POST ${OPERATION_PATHS[op]} near-valid`);
      // Now and then the caller asks for a billed refresh: it must still send nothing invalid.
      const headers = fc.constantFrom<Record<string, string>>({}, {}, {}, { "cache-control": "no-cache" });
      await fc.assert(
        fc.asyncProperty(mutatedBody(op), headers, async (m, h) => {
          count.add(mutationKind(m.what));
          await checkAnalysisRoute(op, m.text, count, h);
        }),
        fcOptions(runs(300)),
      );
      count.done("bodies");
    },
  );

  test(`POST create/enhance: ${runs(60)} valid bodies → 200 with the relay's answer, at most one upstream call each`, async () => {
    const count = tally.start("POST valid bodies");
    const body = fc.constantFrom(...OPERATIONS).chain((op) => validBody(op).map((e) => ({ op, text: objectText(e) })));
    await fc.assert(
      fc.asyncProperty(body, async ({ op, text }) => {
        expect(validateRequest(op, JSON.parse(text)).ok).toBe(true);
        await checkAnalysisRoute(op, text, count);
      }),
      fcOptions(runs(60)),
    );
    count.done("bodies");
  });

  test(`POST any route: ${runs(300)} raw non-JSON bodies and wrong content types → 400/413/415, nothing sent`, async () => {
    const count = tally.start("POST raw bodies / content types");
    const contentType = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
      fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=utf-16",
        "APPLICATION/JSON",
        "application/jsonx",
        "application/json-patch+json",
        "application/x-ndjson",
        "text/plain",
        "text/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "application/octet-stream",
        "",
        "*/*",
        ";",
      ),
      fc.string({ unit: "grapheme-ascii", maxLength: 30 }).filter((s) => /^[\x21-\x7e][\x20-\x7e]*$/.test(s)),
      fc.constant(undefined),
    );
    const payload = fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.constantFrom(
        "{nope",
        "{",
        "[",
        '{"a":',
        "nul",
        "true",
        "1",
        '"text"',
        "{}",
        "[]",
        "\u0000",
        "\ufeff{}",
        "a=1&b=2",
        "<xml/>",
        '{"fullAddress":"x",}',
        "{'a':1}",
        "NaN",
        "Infinity",
      ),
      fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
      fc.jsonValue().map((v) => `${JSON.stringify(v)}garbage`),
    );
    const route = fc.constantFrom(...Object.values(OPERATION_PATHS), "/v1/batch");
    await fc.assert(
      fc.asyncProperty(route, payload, contentType, async (url, body, type) => {
        count.tried++;
        const before = arrivals();
        const r = await send("POST", url, body, type === undefined ? {} : { "content-type": type });
        expect(statusProblems(r.status, r.json, r.text)).toEqual([]);
        count.add(String(r.status));
        if (arrivals() !== before) {
          // Only a body that is a valid request may reach the service.
          const text = Buffer.isBuffer(body) ? body.toString("utf8") : body;
          const op = Object.entries(OPERATION_PATHS).find(([, p]) => p === url)?.[0] as Operation | undefined;
          expect(op !== undefined && validateRequest(op, tryParse(text).ok ? JSON.parse(text) : undefined).ok).toBe(
            true,
          );
        }
      }),
      fcOptions(runs(300)),
    );
    count.done("bodies");
  });

  test(`POST /v1/batch: ${runs(250)} generated batches → NDJSON lines of 200 or 4xx in the right shape; a bad item fails alone`, async () => {
    const count = tally.start("POST /v1/batch");
    const op = fc.constantFrom(...OPERATIONS);
    const item: fc.Arbitrary<RawJson> = fc.oneof(
      // A valid item, from a small set so the relay's cache answers most of them.
      {
        weight: 1,
        arbitrary: op.chain((o) =>
          familiarBody(o).map((e) =>
            raw([
              ["strategy", o],
              ["params", raw(e)],
            ]),
          ),
        ),
      },
      {
        weight: 4,
        arbitrary: op.chain((o) =>
          mutatedBody(o, { poison: false }).map((m) =>
            raw([
              ["strategy", o],
              ["params", new RawJson(m.text)],
            ]),
          ),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.oneof(
              fc.string({ maxLength: 10 }),
              fc.constantFrom<unknown>("BUY", "create", "villa", "enhance ", "", null, 1),
            ),
            op.chain(familiarBody),
          )
          .map(([s, e]) =>
            raw([
              ["strategy", s],
              ["params", raw(e)],
            ]),
          ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(op, junkValue).map(([s, p]) =>
          raw([
            ["strategy", s],
            ["params", p],
          ]),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            op.chain((o) => familiarBody(o).map((e) => ({ o, e }))),
            fc.constantFrom<unknown>("yes", 1, null, "true", false),
          )
          .map(([{ o, e }, refresh]) =>
            raw([
              ["strategy", o],
              ["params", raw(e)],
              ["refresh", refresh],
            ]),
          ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            op.chain((o) => familiarBody(o).map((e) => ({ o, e }))),
            junkKey,
          )
          .map(([{ o, e }, key]) =>
            raw([
              ["strategy", o],
              ["params", raw(e)],
              [key, 1],
            ]),
          ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => new RawJson(JSON.stringify(v))) },
    );
    const list = (items: RawJson[]) => new RawJson(`[${items.map((i) => i.text).join(",")}]`);
    const batch = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(
            fc.array(item, { minLength: 1, maxLength: 8 }),
            fc.constantFrom<boolean | undefined>(undefined, false, true),
            fc.constantFrom<unknown>(undefined, 0, 3, 50, 51, -1, 2.5, "5", true),
          )
          .map(([items, dryRun, most]) =>
            objectText([
              ["items", list(items)],
              ...(dryRun === undefined ? [] : ([["dryRun", dryRun]] as Entries)),
              ...(most === undefined ? [] : ([["maxComparables", most]] as Entries)),
            ]),
          ),
      },
      // A poisoned item (prototype pollution) makes the parser refuse the whole batch.
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.array(item, { minLength: 0, maxLength: 3 }),
            fc.constantFrom(
              '{"strategy":"buy","params":{"__proto__":{"x":1}}}',
              '{"strategy":"buy","params":{"constructor":{"prototype":{}}}}',
            ),
          )
          .map(([items, poisoned]) => objectText([["items", list([...items, new RawJson(poisoned)])]])),
      },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.oneof(fc.constantFrom<unknown>([], null, "all", {}, 1), junkValue),
            fc.constantFrom<unknown>("yes", 1, null),
          )
          .map(([items, dryRun]) =>
            objectText([
              ["items", items],
              ["dryRun", dryRun],
            ]),
          ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.array(item, { minLength: 1, maxLength: 3 }), junkKey).map(([items, key]) =>
          objectText([
            ["items", list(items)],
            [key, true],
          ]),
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(batch, async (text) => {
        count.tried++;
        const before = arrivals();
        const r = await send("POST", "/v1/batch", text, { "content-type": "application/json" });
        const sent = arrivals() - before;
        const parsed = JSON.parse(text) as unknown;
        const items = topLevelItems(parsed);
        if (isPoisoned(parsed) || items === undefined) {
          count.add("refused whole");
          expect(statusProblems(r.status, r.json, r.text)).toEqual([]);
          expect(r.status).toBe(400);
          expect(r.json.error.code).toBe("STR_BAD_REQUEST");
          if (!isPoisoned(parsed)) expect(r.json.error.fields.length).toBeGreaterThan(0);
          expect(sent).toBe(0);
          return;
        }
        const verdicts = items.map((item, i) => itemOracle(item, i));
        const valid = verdicts.filter((v) => v.ok).length;
        count.add("items", items.length);
        count.add("bad items", items.length - valid);
        expect(r.status).toBe(200);
        if ((parsed as { dryRun?: unknown }).dryRun === true) {
          count.add("dry runs");
          const dry = DryRunAnswer.parse(r.json);
          expect(dry.items).toBe(items.length);
          expect(dry.verdicts.map((v) => v === "invalid")).toEqual(verdicts.map((v) => !v.ok));
          expect(sent).toBe(0);
          return;
        }
        expect(String(r.headers["content-type"])).toMatch(/^application\/x-ndjson/);
        const lines = r.text
          .trim()
          .split("\n")
          .map((l) => BatchLine.parse(JSON.parse(l)));
        expect(lines.map((l) => l.index).sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
        for (const line of lines) {
          expect(statusProblems(line.status, line.body, JSON.stringify(line.body))).toEqual([]);
          const verdict = verdicts[line.index];
          if (!verdict?.ok) {
            // A bad item fails alone, as a 400 naming fields inside that item.
            expect({ index: line.index, status: line.status, code: (line.body as any).error?.code }).toEqual({
              index: line.index,
              status: 400,
              code: "STR_VALIDATION",
            });
            const paths = ((line.body as any).error.fields as { path: string }[]).map((f) => f.path);
            expect(paths.length).toBeGreaterThan(0);
            for (const p of paths) expect(p.startsWith(`items[${line.index}]`)).toBe(true);
            // A bad params object: the contract's issues, each pointed inside the item.
            if (verdict && verdict.paths) expect(paths).toEqual(verdict.paths);
          } else {
            count.add(`valid items → ${line.status}`);
            if (line.status === 200) expect(RelayAnswer.safeParse(line.body).success).toBe(true);
            else expect(verdict.op).toBe("enhance"); // an id no analysis has: the service's 404, nothing billed
          }
        }
        count.add("upstream calls", sent);
        expect(sent).toBeLessThanOrEqual(valid);
      }),
      fcOptions(runs(250)),
    );
    count.done("batches");
  });

  test(`GET /v1/analyses/:id: ${runs(600)} odd ids (traversal, unicode, very long, encoded or raw) → 200/400/404, nothing sent`, async () => {
    const count = tally.start("GET /v1/analyses/:id");
    const idRule = idField();
    const id = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/),
      fc.constantFrom(
        "../../etc/passwd",
        "..%2f..%2fetc%2fpasswd",
        "..\\..\\windows",
        "%00",
        "%",
        "%zz",
        "%2e%2e",
        ".",
        "..",
        "a/b",
        "a?b=c",
        "a#b",
        " ",
        "\u0000",
        "\ud800",
        "😀",
        "é",
        "ｆｕｌｌ",
        "__proto__",
        "constructor",
        "x".repeat(100),
        "x".repeat(101),
        "x".repeat(128),
        "x".repeat(129),
        "0123456789abcdef01234567",
      ),
      fc.integer({ min: 129, max: 20_000 }).map((n) => "a".repeat(n)),
      fc.constantFrom(...storedIds),
    );
    const form = fc.constantFrom<"encoded" | "raw" | "encodeURI">("encoded", "encoded", "raw", "encodeURI");
    await fc.assert(
      fc.asyncProperty(id, form, async (value, how) => {
        const path = how === "encoded" ? percentEncode(value) : how === "encodeURI" ? safeEncodeURI(value) : value;
        if (path === undefined) return;
        count.tried++;
        const before = arrivals();
        let r: Answer;
        try {
          r = await send("GET", `/v1/analyses/${path}`);
        } catch (error) {
          // light-my-request refuses some raw URLs itself (nothing reached the relay).
          count.add("refused by the test client");
          expect(how).toBe("raw");
          void error;
          return;
        }
        expect(statusProblems(r.status, r.json, r.text)).toEqual([]);
        expect([200, 400, 401, 404]).toContain(r.status);
        count.add(String(r.status));
        expect(arrivals()).toBe(before);
        if (how !== "encoded") return;
        // What the route receives (a lone surrogate was sent as U+FFFD).
        const received = decodeURIComponent(path);
        const verdict = idRule.safeParse(received);
        // "", "." and ".." leave no id in the path (URL dot segments are resolved): no such route, or no id.
        if (received === "" || received === "." || received === "..") expect([400, 404]).toContain(r.status);
        else if (received.length > 1024)
          expect({ status: r.status, code: r.json.error.code }).toEqual({ status: 400, code: "STR_BAD_REQUEST" });
        else if (!verdict.success) {
          expect({
            status: r.status,
            code: r.json.error.code,
            fields: r.json.error.fields?.map((f: { path: string }) => f.path),
          }).toEqual({ status: 400, code: "STR_VALIDATION", fields: ["id"] });
        } else if (storedIds.includes(verdict.data)) {
          expect(r.status).toBe(200);
          expect(RelayAnswer.safeParse(r.json).success).toBe(true);
        } else {
          expect({ status: r.status, code: r.json.error.code }).toEqual({
            status: 404,
            code: "STR_ANALYSIS_NOT_FOUND",
          });
        }
      }),
      fcOptions(runs(600)),
    );
    count.done("ids");
  });

  test(`every route: ${runs(400)} methods, query strings, Authorization and Origin headers → 200/204 or 4xx, nothing sent`, async () => {
    const count = tally.start("methods / queries / headers");
    const routes = [
      ...Object.values(OPERATION_PATHS),
      "/v1/batch",
      "/v1/analyses/0123456789abcdef01234567",
      "/v1/usage",
      "/healthz",
      "/metrics",
      "/v1/",
      "/v1/external/analysis/create/villa",
      "/v1/usage/",
      "//v1//usage",
    ];
    const method = fc.constantFrom("GET", "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD");
    const query = fc.oneof(
      fc.constant(""),
      fc
        .dictionary(
          fc.oneof(junkKey, fc.constantFrom("token", "key", "auth", "api_key", "refresh", "id")),
          fc.oneof(fc.string({ maxLength: 10 }), fc.constant(TEST_TOKEN)),
          { maxKeys: 3 },
        )
        .map((d) => `?${new URLSearchParams(d).toString()}`),
      fc.string({ unit: "grapheme-ascii", maxLength: 30 }).map((s) => `?${encodeURI(s)}`),
    );
    const printable = fc.string({ unit: "grapheme-ascii", maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s));
    const authorization = fc.oneof(
      fc.constant(AUTH.authorization),
      fc.constant(AUTH.authorization),
      fc.constantFrom(
        "",
        "Bearer",
        "Bearer ",
        `bearer ${TEST_TOKEN}`,
        `Bearer  ${TEST_TOKEN} `,
        `Basic ${TEST_TOKEN}`,
        `Bearer ${TEST_TOKEN}x`,
        `Bearer ${TEST_TOKEN.slice(0, -1)}`,
        `Bearer ${TEST_TOKEN} extra`,
      ),
      printable,
      printable.map((s) => `Bearer ${s}`),
    );
    const origin = fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      fc.constantFrom("https://evil.example", "null", "", "http://localhost"),
      printable,
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        method,
        query,
        authorization,
        origin,
        body,
        async (route, m, q, auth, org, payload) => {
          count.tried++;
          const before = arrivals();
          const headers: Record<string, string> = {
            authorization: auth,
            ...(org === undefined ? {} : { origin: org }),
            ...(payload === undefined ? {} : { "content-type": "application/json" }),
          };
          const r = await send(m, `${route}${q}`, m === "GET" || m === "HEAD" ? undefined : payload, headers);
          count.add(String(r.status));
          if (r.status === 204) expect(m).toBe("OPTIONS");
          else if (m === "HEAD") expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
          else expect(statusProblems(r.status, r.json, r.text)).toEqual([]);
          if (r.status === 200 && m === "GET") {
            if (route === "/v1/usage") expect(UsageAnswer.safeParse(r.json).success).toBe(true);
            if (route === "/healthz") expect(HealthAnswer.safeParse(r.json).success).toBe(true);
            if (route === "/metrics") expect(r.text).toMatch(/^# (HELP|TYPE) /m);
          }
          // Only a valid analysis request with the right token may reach the service.
          if (arrivals() !== before) {
            const op = Object.entries(OPERATION_PATHS).find(([, p]) => p === route)?.[0] as Operation | undefined;
            expect({
              sent: true,
              valid: op !== undefined && payload !== undefined && validateRequest(op, JSON.parse(payload)).ok,
            }).toEqual({ sent: true, valid: true });
          }
        },
      ),
      fcOptions(runs(400)),
    );
    count.done("requests");
  });

  // Counterexamples the fuzzing found, kept as fixed cases so they cannot come back unseen.
  describe("regressions found by fuzzing", () => {
    test("an unknown key that is empty or blank is named, quoted, in the 400", async () => {
      const r = await send(
        "POST",
        OPERATION_PATHS.buy,
        '{"fullAddress":"1 Main St","purchasePriceUSD":1,"bedrooms":1,"bathrooms":1,"accomodates":1,"":1," ":2}',
        { "content-type": "application/json" },
      );
      expect(r.status).toBe(400);
      expect(r.json.error.fields.map((f: { path: string }) => f.path)).toEqual(['[""]', '[" "]']);
    });

    test("a batch body that is not an object is a 400 naming body, in the project's words", async () => {
      for (const text of ["[]", "1", "null"]) {
        const r = await send("POST", "/v1/batch", text, { "content-type": "application/json" });
        expect(statusProblems(r.status, r.json, r.text)).toEqual([]);
        expect(r.json.error.fields).toEqual([
          { path: "body", message: expect.stringMatching(/^must be a JSON object/) },
        ]);
      }
      const empty = await send("POST", "/v1/batch");
      expect(empty.json.error.fields).toEqual([{ path: "body", message: expect.stringMatching(/got nothing$/) }]);
    });

    test("batch items whose params are not an object, or hold odd keys, are named inside the item", async () => {
      const r = await send(
        "POST",
        "/v1/batch",
        '{"items":[{"strategy":"buy","params":7},{"strategy":"enhance","params":{"analysisId":"a","addAIComps":true,"a.b":1}}]}',
        { "content-type": "application/json" },
      );
      const lines = r.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .sort((a, b) => a.index - b.index);
      expect(lines.map((l) => l.body.error.fields.map((f: { path: string }) => f.path))).toEqual([
        ["items[0].params"],
        ['items[1].params["a.b"]'],
      ]);
    });

    test("ids of 101 to 128 characters reach the route; longer ones and bad percent-encoding get the error shape", async () => {
      const long = await send("GET", `/v1/analyses/${"a".repeat(128)}`);
      expect({ status: long.status, code: long.json.error.code }).toEqual({
        status: 404,
        code: "STR_ANALYSIS_NOT_FOUND",
      });
      const longer = await send("GET", `/v1/analyses/${"a".repeat(129)}`);
      expect({ status: longer.status, fields: longer.json.error.fields }).toEqual({
        status: 400,
        fields: [{ path: "id", message: expect.any(String) }],
      });
      for (const url of [`/v1/analyses/${"a".repeat(5000)}`, "/v1/analyses/%zz", "/v1/analyses/%"]) {
        const r = await send("GET", url);
        expect({ url, problems: statusProblems(r.status, r.json, r.text), status: r.status }).toEqual({
          url,
          problems: [],
          status: 400,
        });
      }
    });
  });

  test(`GET /v1/usage, /healthz, /metrics stay well formed after the fuzzing`, async () => {
    expect(UsageAnswer.safeParse((await send("GET", "/v1/usage")).json).success).toBe(true);
    expect(HealthAnswer.safeParse((await send("GET", "/healthz")).json).success).toBe(true);
    const metrics = await send("GET", "/metrics");
    expect(metrics.status).toBe(200);
    // No request the fuzzing made ended in a 5xx.
    expect(metrics.text).not.toMatch(/^str_relay_requests_total\{[^}]*status="5\d\d"\} [1-9]/m);
  });
});

// ---------------------------------------------------------------------------------------------

function raw(entries: Entries): RawJson {
  return new RawJson(objectText(entries));
}

/** The items of a batch body the relay takes as a whole, or undefined when it refuses the whole body. */
function topLevelItems(body: unknown): unknown[] | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { items, dryRun, maxComparables, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return undefined;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  if (dryRun !== undefined && typeof dryRun !== "boolean") return undefined;
  if (
    maxComparables !== undefined &&
    !(
      typeof maxComparables === "number" &&
      Number.isInteger(maxComparables) &&
      maxComparables >= 0 &&
      maxComparables <= 50
    )
  )
    return undefined;
  return items;
}

function itemOracle(item: unknown, index: number): { ok: true; op: Operation } | { ok: false; paths?: string[] } {
  const parsed = BatchItem.safeParse(item);
  if (!parsed.success) return { ok: false };
  const { strategy, params } = parsed.data;
  const v = validateRequest(strategy, params);
  if (v.ok) return { ok: true, op: strategy };
  const prefix = `items[${index}].params`;
  const whole = typeof params !== "object" || params === null || Array.isArray(params);
  return {
    ok: false,
    paths: v.issues.map((i) =>
      whole && i.path === "body" ? prefix : i.path.startsWith("[") ? `${prefix}${i.path}` : `${prefix}.${i.path}`,
    ),
  };
}

/** The kind of a mutation, for the tally. */
function mutationKind(what: string): string {
  if (what.endsWith("=junk")) return "a field broken";
  if (what.startsWith("without ")) return "a field left out";
  if (what.startsWith("huge ")) return "huge text";
  if (/alone|beside|no location/.test(what)) return "location rule";
  if (/__proto__|constructor/.test(what)) return "prototype keys";
  return what;
}

/** encodeURIComponent that also takes lone surrogates (sent as U+FFFD, as a browser would). */
function percentEncode(s: string): string {
  return [...Buffer.from(s, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

function safeEncodeURI(s: string): string | undefined {
  try {
    return encodeURI(s);
  } catch {
    return undefined; // a lone surrogate
  }
}
