import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RouteEntry } from "../../src/relay/http/access";
import { loadConfig } from "../../src/relay/config";
import { createRelay } from "../../src/relay/server";
import { resolveTokens } from "../../src/relay/callers/tokens";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";
import { RawAnswer, rawRequest } from "../support/raw-http";

/**
 * The relay as an attacker meets it, over a real socket: every route that needs a token, in every
 * spelling of its path an HTTP stack may read differently, without a token and with a wrong one.
 * The routes come from the relay itself (each route declares its access), so the table grows with
 * the routes.
 */

const ANALYSIS_ID = "0123456789abcdef01234567";

/** A concrete path for a route pattern (its parameters and wildcard filled in). */
function concrete(url: string): string {
  return url.replace(/:id\b/, ANALYSIS_ID).replace(/\*$/, "usage");
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;

/** The spellings of `p` that must never reach its route without a token. */
export function spellingsOf(p: string, port: number): string[] {
  const last = p.lastIndexOf("/");
  const [head, tail] = [p.slice(0, last), p.slice(last + 1)];
  return [
    p, // the plain spelling, for the control
    `/${hex(p[1] as string)}${p.slice(2)}`, // a percent-encoded letter (/%761/usage)
    `/${hex(p[1] as string).toLowerCase()}${p.slice(2)}`, // lower-case hex
    `/${[...p.slice(1)].map((c) => (c === "/" ? c : hex(c))).join("")}`, // every character encoded
    `${head}%2F${tail}`, // an encoded slash
    `${head}%2f${tail}`,
    `/x/..${p}`, // dot segments
    `/x/%2e%2e${p}`,
    `${head}/./${tail}`,
    `${p}/.`,
    `${p}/..${p}`,
    `/${p}`, // double slashes
    `${head}//${tail}`,
    `${p}#x`, // fragments
    `${p}#/../x`,
    `http://127.0.0.1:${port}${p}`, // absolute-form targets
    `http://evil.example${p}`,
    `HTTP://127.0.0.1:${port}${p}`,
    `${p}.`, // trailing dots and semicolons
    `${p};`,
    `${p};x=1`,
    `${p}%3B`,
    p.toUpperCase(), // mixed case
    p.replace(/[a-z]/, (c) => c.toUpperCase()),
    `${p}/`,
    `${p}%00`,
    `${p}%20`,
    p.slice(1),
  ];
}

/** A relay on a real socket: raw requests reach it as an attacker sends them. */
async function listening(...args: Parameters<typeof startRelay>): Promise<{ t: TestRelay; port: number }> {
  const t = await startRelay(...args);
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  return { t, port: (t.relay.app.server.address() as { port: number }).port };
}

/** What a refused request may answer: never a 2xx or 3xx, never a server error. */
const REFUSED = new Set([400, 401, 404, 405, 421]);

describe("every route that needs a token, in every spelling, over a real socket", () => {
  let t: TestRelay;
  let port: number;
  let tokenRoutes: RouteEntry[];
  beforeAll(async () => {
    ({ t, port } = await listening());
    tokenRoutes = t.relay.routes.filter((r) => r.access === "token");
  });
  afterAll(() => t.close());

  test("the table is the relay's own: the API's routes and the metrics are in it, /healthz and the add-in's files are not", () => {
    const names = tokenRoutes.map((r) => `${r.method} ${r.url}`);
    for (const route of [
      "POST /v1/external/analysis/create/buy",
      "POST /v1/external/analysis/enhance",
      "POST /v1/batch",
      "GET /v1/analyses/:id",
      "HEAD /v1/usage",
      "GET /metrics",
      "OPTIONS /v1/*",
    ]) {
      expect(names).toContain(route);
    }
    expect(tokenRoutes.length).toBeGreaterThanOrEqual(14);
    expect(t.relay.routes.find((r) => r.url === "/healthz")?.access).toBe("probe");
    expect(t.relay.routes.find((r) => r.url === "/manifest.xml")?.access).toBe("public");
  });

  test("the add-in's built files are listed as public, as the guards treat them (not as token routes)", async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), "str-fake-dist-"));
    fs.copyFileSync(path.join(__dirname, "../../manifest.xml"), path.join(dist, "manifest.xml"));
    fs.writeFileSync(path.join(dist, "functions.json"), '{"functions":[]}');
    fs.writeFileSync(path.join(dist, "taskpane.js"), "// built");
    const built = await startRelay({}, { addinDir: dist });
    try {
      const file = built.relay.routes.filter((r) => r.url === "/taskpane.js");
      expect(file.map((r) => r.access)).toEqual(["public", "public"]);
      expect(built.relay.routes.filter((r) => r.access === "token").map((r) => r.url)).not.toContain("/taskpane.js");
    } finally {
      await built.close();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });

  test("with the token, the plain spelling reaches each route (so the refusals below are the guard's)", async () => {
    const refused: string[] = [];
    for (const route of tokenRoutes.filter((r) => r.method !== "OPTIONS")) {
      // Bodies the routes refuse (400) without billing: reaching the route is what counts here.
      const body = route.method === "POST" ? "{}" : "";
      const r = await rawRequest(
        port,
        route.method,
        concrete(route.url),
        { authorization: `Bearer ${TEST_TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
        body,
      );
      if (r.status === 401 || r.status === 421) refused.push(`${route.method} ${route.url} → ${r.status}`);
    }
    expect(refused).toEqual([]);
  });

  test.each([
    ["no token", {}],
    ["a wrong token", { authorization: "Bearer wrong-token-0123456789abcdef" }],
  ])(
    "%s: every spelling of every route is refused (401, 400, 404 or 421), and the service sees nothing",
    async (_name, auth) => {
      const seen: { target: string; method: string; status: number }[] = [];
      for (const route of tokenRoutes) {
        const body =
          route.method === "POST"
            ? JSON.stringify(
                route.url === "/v1/batch" ? { items: [{ strategy: "buy", params: buyBody(1) }] } : buyBody(2),
              )
            : "";
        for (const target of spellingsOf(concrete(route.url), port)) {
          const r: RawAnswer = await rawRequest(
            port,
            route.method,
            target,
            { ...auth, ...(body ? { "content-type": "application/json" } : {}) },
            body,
          );
          seen.push({ target, method: route.method, status: r.status });
        }
      }
      expect(seen.length).toBeGreaterThan(300);
      expect(seen.filter((s) => !REFUSED.has(s.status))).toEqual([]);
      expect(t.sandboxStats().arrivals).toBe(0);
    },
  );

  test("the probes the issue names are refused", async () => {
    const post = (target: string) =>
      rawRequest(
        port,
        "POST",
        target,
        { "content-type": "application/json" },
        JSON.stringify({
          fullAddress: "1 Bypass St, Austin TX",
          purchasePriceUSD: 300000,
          bedrooms: 2,
          bathrooms: 1,
          accomodates: 4,
        }),
      );
    expect((await rawRequest(port, "GET", "/%761/usage")).status).toBe(401);
    expect((await post("/%761/external/analysis/create/buy")).status).toBe(401);
    expect((await rawRequest(port, "GET", "/%6Detrics")).status).toBe(401);
    expect((await rawRequest(port, "GET", "/metrics#x")).status).toBe(400);
    expect((await rawRequest(port, "GET", "http://x/v1/usage")).status).toBe(400);
    expect(t.sandboxStats().arrivals).toBe(0);
  });
});

describe("the relay's own names come from its configuration, never from the request", () => {
  let t: TestRelay;
  let port: number;
  beforeAll(async () => {
    ({ t, port } = await listening({
      RELAY_PUBLIC_URL: "https://relay.example.com",
      RELAY_ALLOWED_ORIGINS: "https://addin.example.com",
    }));
  });
  afterAll(() => t.close());
  const auth = { authorization: `Bearer ${TEST_TOKEN}` };

  test("a Host that is none of the relay's names is refused with 421, token or not, on API and add-in routes", async () => {
    for (const target of ["/v1/usage", "/manifest.xml", "/nope"]) {
      const r = await rawRequest(port, "GET", target, { ...auth, host: "evil.example:8787" });
      expect(r.status).toBe(421);
      expect(JSON.parse(r.body).error.code).toBe("STR_HOST_NOT_ALLOWED");
    }
  });

  test("DNS rebinding: Origin and Host both evil.example are not the relay's own origin", async () => {
    const r = await rawRequest(port, "GET", "/v1/usage", {
      ...auth,
      host: "evil.example",
      origin: "http://evil.example",
    });
    expect(r.status).toBe(421);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
  });

  test("the relay's names are accepted: the public URL's host, and loopback", async () => {
    for (const host of [
      "relay.example.com",
      "RELAY.example.com:443",
      "localhost",
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
    ]) {
      expect({ host, status: (await rawRequest(port, "GET", "/v1/usage", { ...auth, host })).status }).toEqual({
        host,
        status: 200,
      });
    }
  });

  test("origins: the public URL's, the allowed ones, and the relay's loopback origin on its own port; not the same names on another port", async () => {
    const status = async (origin: string) => (await rawRequest(port, "GET", "/v1/usage", { ...auth, origin })).status;
    expect(await status("https://relay.example.com")).toBe(200);
    expect(await status("https://addin.example.com")).toBe(200);
    expect(await status(`http://127.0.0.1:${port}`)).toBe(200);
    expect(await status(`http://localhost:${port}`)).toBe(200);
    expect(await status(`http://localhost:${port + 1}`)).toBe(403);
    expect(await status("https://evil.example")).toBe(403);
  });

  test("/healthz answers probes whatever their Host (a container probe uses the replica's address)", async () => {
    const r = await rawRequest(port, "GET", "/healthz", { host: "10.0.3.7:8787" });
    expect(r.status).toBe(200);
  });
});

describe("a relay token anywhere in a URL is refused, on every route, and never written down", () => {
  let t: TestRelay;
  let port: number;
  beforeAll(async () => {
    ({ t, port } = await listening({}, { addinDir: "/nonexistent-dist" }));
  });
  afterAll(() => t.close());

  const encoded = [...TEST_TOKEN].map(hex).join("");
  test.each([
    ["a bare query key", `/v1/usage?${TEST_TOKEN}`],
    ["a query value", `/v1/usage?x=${TEST_TOKEN}`],
    ["a named parameter, wrong value", "/v1/usage?access_token=abc"],
    ["the path", `/v1/usage/${TEST_TOKEN}`],
    ["after ;", `/v1/usage;${TEST_TOKEN}`],
    ["after #", `/v1/usage#${TEST_TOKEN}`],
    ["percent-encoded", `/v1/usage?${encoded}`],
    ["in another case", `/v1/usage?t=${TEST_TOKEN.toUpperCase()}`],
    ["a public route", `/manifest.xml?token=${TEST_TOKEN}`],
    ["the health probe", `/healthz?${TEST_TOKEN}`],
    ["an unknown route", `/nope/${TEST_TOKEN}`],
  ])("%s → refused (never 200), even with the right token in the header", async (_name, target) => {
    const r = await rawRequest(port, "GET", target, { authorization: `Bearer ${TEST_TOKEN}` });
    expect([400, 401]).toContain(r.status);
    expect(r.body).not.toContain(TEST_TOKEN);
    expect(r.body.toLowerCase()).not.toContain(TEST_TOKEN.toLowerCase());
  });

  test("the log lines of all those requests hold no token in any form", () => {
    const logs = t.logs.join("");
    expect(t.logs.length).toBeGreaterThan(10);
    expect(logs.toLowerCase()).not.toContain(TEST_TOKEN.toLowerCase());
    expect(logs.toLowerCase()).not.toContain(encoded.toLowerCase());
  });
});

describe("every answer carries the security headers, the early ones too", () => {
  let t: TestRelay;
  let port: number;
  beforeAll(async () => {
    ({ t, port } = await listening({}, { addinDir: "/nonexistent-dist" }));
  });
  afterAll(() => t.close());

  test.each([
    ["a 404", () => rawRequest(port, "GET", "/nope")],
    ["a 400 for malformed percent-encoding", () => rawRequest(port, "GET", "/v1/analyses/%zz")],
    ["a 400 for an absolute-form target", () => rawRequest(port, "GET", "http://x/v1/usage")],
    ["a 401", () => rawRequest(port, "GET", "/v1/usage")],
    ["a 421", () => rawRequest(port, "GET", "/v1/usage", { host: "evil.example" })],
    ["a 431 from Node's parser", () => rawRequest(port, "GET", "/v1/usage", { "x-big": "a".repeat(20_000) })],
    ["a 200", () => rawRequest(port, "GET", "/v1/usage", { authorization: `Bearer ${TEST_TOKEN}` })],
    ["/healthz", () => rawRequest(port, "GET", "/healthz")],
  ])("%s", async (_name, send) => {
    const r = await send();
    expect(r.headers).toMatchObject({ "x-content-type-options": "nosniff", "cache-control": "no-store" });
    expect(r.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  test("the 431 really is one", async () => {
    expect((await rawRequest(port, "GET", "/v1/usage", { "x-big": "a".repeat(20_000) })).status).toBe(431);
  });
});

describe("input hygiene: hidden characters in an address are refused before billing", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
  });
  afterAll(() => t.close());

  test.each([
    ["NUL", "12 Main\u0000 St, Austin TX", /U\+0000/],
    ["a control character", "12 Main\u0007 St, Austin TX", /U\+0007/],
    ["a bidirectional override", "12 Main \u202eXT nitsuA ,tS", /U\+202E/],
    ["a bidirectional isolate", "12 Main \u2067St", /U\+2067/],
    ["a lone surrogate", "12 Main St \ud800, Austin TX", /U\+D800/],
    ["only invisible characters", "\u200b\u200d\ufeff\u2060", /invisible/],
  ])("%s → 400 naming fullAddress, nothing sent", async (_name, fullAddress, rule) => {
    const r = await t.post(BUY_PATH, { ...buyBody(), fullAddress });
    expect(r.status).toBe(400);
    const field = r.json.error.fields.find((f: { path: string }) => f.path === "fullAddress");
    expect(field.message).toMatch(rule);
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test("line breaks and tabs (a cell with Alt+Enter) and non-Latin text are addresses", async () => {
    expect((await t.post(BUY_PATH, { ...buyBody(), fullAddress: "12 Main St\nAustin TX" })).status).toBe(200);
    expect((await t.post(BUY_PATH, { ...buyBody(), fullAddress: "Bahnhofstraße 1, Zürich 🏠" })).status).toBe(200);
  });
});

describe("files only the relay's user can read", () => {
  const mode = (p: string) => fs.statSync(p).mode & 0o777;

  test("an existing data directory and token file with wide modes are tightened; the SQLite files are 0600", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-modes-"));
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, "relay-token"), "rt_existing_token_0123456789abcdef\n", { mode: 0o644 });
    fs.chmodSync(path.join(dir, "relay-token"), 0o644);
    const { tokens } = resolveTokens(undefined, dir);
    expect(tokens).toEqual(["rt_existing_token_0123456789abcdef"]);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, "relay-token"))).toBe(0o600);

    const relay = await createRelay({
      config: loadConfig({ RELAY_DATA_DIR: dir }),
      tokens,
      logger: false,
      sandbox: { timeScale: 0 },
    });
    try {
      await relay.app.inject({
        method: "POST",
        url: BUY_PATH,
        headers: { authorization: `Bearer ${tokens[0]}`, "content-type": "application/json" },
        payload: buyBody(),
      });
      const files = fs.readdirSync(dir).filter((f) => f.startsWith("relay.sqlite"));
      expect(files).toEqual(expect.arrayContaining(["relay.sqlite", "relay.sqlite-wal"]));
      for (const f of files) expect({ f, mode: mode(path.join(dir, f)) }).toEqual({ f, mode: 0o600 });
    } finally {
      await relay.close();
    }
  });

  test("a new data directory and generated token are private from the start", () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "str-modes-")), "data");
    const { generated, file } = resolveTokens(undefined, dir);
    expect(generated).toBe(true);
    expect(mode(dir)).toBe(0o700);
    expect(mode(file as string)).toBe(0o600);
  });

  test("a directory that cannot be made private stops the start with what to do", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-modes-"));
    fs.chmodSync(dir, 0o755);
    // As a directory another user owns would: chmod refused.
    const spy = jest.spyOn(fs, "chmodSync").mockImplementation(() => {
      throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
    });
    try {
      expect(() => resolveTokens(undefined, dir)).toThrow(/can be read by other users \(mode 755\).*chmod 700/);
    } finally {
      spy.mockRestore();
    }
  });
});
