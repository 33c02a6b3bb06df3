import { addinBuild } from "../support/addin-build";
import { startRelay, TestRelay } from "../support/relay";

describe("the relay serves the built add-in on its own origin", () => {
  let t: TestRelay;
  beforeAll(async () => {
    const dist = await addinBuild();
    t = await startRelay({ RELAY_PUBLIC_URL: "https://relay.example.com" }, { addinDir: dist });
  }, 180_000);
  afterAll(() => t.close());

  const get = (url: string) => t.relay.app.inject({ method: "GET", url });

  test("GET /manifest.xml points every URL at RELAY_PUBLIC_URL, with no token needed", async () => {
    const r = await get("/manifest.xml");
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toMatch(/xml/);
    expect(r.body).not.toContain("localhost:3000");
    expect(r.body).toContain("https://relay.example.com/taskpane.html");
    expect(r.body).toContain("https://relay.example.com/functions.json");
  });

  test("the task pane, the functions and their metadata are served; the API still needs its token", async () => {
    const page = await get("/taskpane.html");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("appsforoffice.microsoft.com/lib/1/hosted/office.js");
    // Excel on the web frames the pane: its hosts are the allowed frame ancestors; office.js comes from Microsoft's CDN.
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toMatch(/frame-ancestors 'self' [^;]*https:\/\/\*\.officeapps\.live\.com/);
    expect(csp).toMatch(/script-src 'self' https:\/\/appsforoffice\.microsoft\.com(;|$)/);
    expect(csp).toMatch(/object-src 'none'/);
    expect((await get("/functions.js")).statusCode).toBe(200);
    const functions = JSON.parse((await get("/functions.json")).body).functions as { id: string }[];
    expect(functions.map((f) => f.id).sort()).toEqual([
      "ARB",
      "BUY",
      "CARD",
      "COHOST",
      "COMPS",
      "ENHANCE",
      "MAXBID",
      "MONTHLY",
      "OWNED",
      "PROJECTION",
      "SENSITIVITY",
      "WHATIF",
    ]);
    expect((await get("/assets/icon-32.png")).headers["content-type"]).toBe("image/png");
    expect((await get("/v1/usage")).statusCode).toBe(401);
    const missing = await get("/nope.html");
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe("STR_NOT_FOUND");
  });

  test("functions.json's help links point at this relay's help page, each at its function's section", async () => {
    const r = await get("/functions.json");
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    const functions = JSON.parse(r.body).functions as { id: string; helpUrl: string }[];
    expect(functions).toHaveLength(12);
    const page = (await get("/help.html")).body;
    for (const f of functions) {
      expect(f.helpUrl).toBe(`https://relay.example.com/help.html#str-${f.id.toLowerCase()}`);
      // The build minifies the page: attribute quotes may be gone.
      expect(page).toMatch(new RegExp(`\\bid="?str-${f.id.toLowerCase()}[\\s">]`));
    }
  });

  test("the public add-in files answer CORS (Excel on the web reads functions.json cross-origin); the API's origin rule stands", async () => {
    // Microsoft's "Manually create JSON metadata for custom functions in Excel": the metadata's host must allow CORS.
    for (const file of ["/functions.json", "/functions.js", "/taskpane.html", "/manifest.xml", "/assets/icon-32.png"]) {
      const r = await t.relay.app.inject({
        method: "GET",
        url: file,
        headers: { origin: "https://excel.officeapps.live.com" },
      });
      expect({ file, status: r.statusCode, cors: r.headers["access-control-allow-origin"] }).toEqual({
        file,
        status: 200,
        cors: "*",
      });
    }
    const api = await t.get("/v1/usage", { origin: "https://excel.officeapps.live.com" });
    expect(api.status).toBe(403);
    expect(api.headers["access-control-allow-origin"]).toBeUndefined();
  });

  test("the API's errors keep the relay's error shape beside the served files", async () => {
    // Registering the files loads the routes declared before them: each must still answer its
    // errors through the relay's handler, or the add-in reads "does not answer like the relay".
    const unknown = await t.get("/v1/analyses/0123456789abcdef01234567");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ success: false, error: { code: "STR_ANALYSIS_NOT_FOUND" } });
    const invalid = await t.post("/v1/external/analysis/create/buy", {
      fullAddress: "12 Main St, Austin TX",
      bedrooms: 3,
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toMatchObject({ success: false, error: { code: "STR_VALIDATION" } });
    expect(invalid.json.error.fields).toContainEqual(expect.objectContaining({ path: "purchasePriceUSD" }));
  });
});

describe("one add-in per deployment", () => {
  const manifestOf = async (env: Record<string, string>) => {
    const t = await startRelay(env, { addinDir: await addinBuild() });
    try {
      const body = (await t.relay.app.inject({ method: "GET", url: "/manifest.xml" })).body;
      return {
        id: /<Id>([^<]+)<\/Id>/.exec(body)?.[1],
        name: /<DisplayName DefaultValue="([^"]+)"/.exec(body)?.[1],
      };
    } finally {
      await t.close();
    }
  };

  test("production, staging and a relay on this machine each serve their own Id; only production has the plain name", async () => {
    const production = await manifestOf({ RELAY_PUBLIC_URL: "https://relay.example.com" });
    const staging = await manifestOf({
      RELAY_PUBLIC_URL: "https://staging.example.com",
      RELAY_DEPLOYMENT_NAME: "staging",
    });
    const local = await manifestOf({ RELAY_PUBLIC_URL: "http://localhost:8787" });
    expect(production.name).toBe("STR Underwriting");
    expect(staging.name).toBe("STR Underwriting (staging)");
    expect(local.name).toBe("STR Underwriting (local)");
    expect(new Set([production.id, staging.id, local.id, "39acac6d-0984-4a68-83e8-9c01a4d36dbe"]).size).toBe(4);
    // Stable: a restart (or another replica) behind the same URL serves the same Id.
    expect((await manifestOf({ RELAY_PUBLIC_URL: "https://relay.example.com/" })).id).toBe(production.id);
  }, 180_000);
});

describe("without a build", () => {
  test("/manifest.xml says how to build it", async () => {
    const t = await startRelay({}, { addinDir: "/nonexistent-dist" });
    try {
      const r = await t.relay.app.inject({ method: "GET", url: "/manifest.xml" });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.message).toMatch(/npm run build/);
    } finally {
      await t.close();
    }
  });
});

describe("a relay told to serve no add-in (str-screen's own)", () => {
  test("has none of the add-in's routes, and still answers its API", async () => {
    const t = await startRelay({}, { addinDir: false });
    try {
      expect(t.relay.routes.filter((r) => r.url === "/manifest.xml" || r.url === "/functions.json")).toEqual([]);
      const manifest = await t.relay.app.inject({ method: "GET", url: "/manifest.xml" });
      expect(manifest.statusCode).toBe(404);
      expect(manifest.json().error.message).not.toMatch(/not built/);
      expect((await t.relay.app.inject({ method: "GET", url: "/v1/usage" })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
