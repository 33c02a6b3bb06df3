import { Browser, BrowserContext, Page } from "playwright-core";
import { addinBuild } from "../support/addin-build";
import { chromiumAvailable, launchChromium, routeOfficeJs, stubCustomFunctionsHost } from "../support/browser";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { reservedPort } from "../support/ports";

/**
 * The built add-in in headless Chromium, served by the relay as in production, office.js from the
 * npm copy. Excel is not here, so the page is given what Excel would give it: the CustomFunctions
 * error types (office.js adds `associate` and keeps what it registers in its association table) and
 * OfficeRuntime.storage holding the relay URL and token, as Settings would have stored them.
 */
const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
if (!chromiumAvailable())
  test("browser tests need Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)", () =>
    undefined);

describeWithChromium("the built add-in's functions in a real browser", () => {
  let t: TestRelay;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const relayCalls: string[] = [];

  beforeAll(async () => {
    const reserved = await reservedPort();
    const port = reserved.port;
    base = `http://127.0.0.1:${port}`;
    t = await startRelay({ RELAY_PUBLIC_URL: base }, { addinDir: await addinBuild(), sandbox: { timeScale: 0.002 } });
    await reserved.release();
    await t.relay.app.listen({ host: "127.0.0.1", port });
    browser = await launchChromium();
    context = await browser.newContext();
    await routeOfficeJs(context);
    await stubCustomFunctionsHost(context, { url: base, token: TEST_TOKEN });
    page = await context.newPage();
    page.on("request", (r) => {
      if (r.url().startsWith(`${base}/v1/`)) relayCalls.push(r.url());
    });
    await page.goto(`${base}/taskpane.html`);
    await page.waitForFunction(() => Boolean((window as any).CustomFunctions?._association?.m_mappings?.BUY));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Calls STR.<id> `count` times in one tick inside the page; returns each result or "#ERR code message". */
  const callMany = (id: string, count: number) =>
    page.evaluate(
      async ({ id, count }) => {
        const fn = (window as any).CustomFunctions._association.m_mappings[id] as (
          ...args: unknown[]
        ) => Promise<unknown[][]>;
        const calls = Array.from({ length: count }, (_, i) =>
          fn(
            [[`${i} Main St, Austin TX`]],
            450000,
            3,
            2,
            8,
            null,
            [["fullAddress, revenue.p50, yearOneCashFlowUSD"]],
            {},
          ),
        );
        return Promise.all(
          calls.map((c) => c.catch((e: { code?: string; message?: string }) => `#ERR ${e.code} ${e.message}`)),
        );
      },
      { id, count },
    );

  test("the page registers every STR function", async () => {
    const ids = await page.evaluate(() => Object.keys((window as any).CustomFunctions._association.m_mappings).sort());
    expect(ids).toEqual([
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
  });

  test("200 STR.BUY calls in one tick → at most 2 HTTP requests to the relay, every result spilled right", async () => {
    relayCalls.length = 0;
    const results = (await callMany("BUY", 200)) as unknown[];
    expect(relayCalls.length).toBeGreaterThan(0);
    expect(relayCalls.length).toBeLessThanOrEqual(2);
    expect(relayCalls.every((u) => u.endsWith("/v1/batch"))).toBe(true);
    results.forEach((r, i) => {
      expect(Array.isArray(r)).toBe(true);
      const row = (r as unknown[][])[0] as unknown[];
      expect(row[0]).toBe(`${i} Main St, Austin TX`);
      // Numbers arrive as numbers (plain: this is not Excel, so no formatted-number support).
      expect(typeof row[1]).toBe("number");
      expect(typeof row[2]).toBe("number");
      // The warnings cell: the sandbox answered, and the row says so.
      expect(row[3]).toBe("⚠ SANDBOX: simulated data");
    });
    expect(t.sandboxStats()).toMatchObject({ reports: 200, duplicates: 0 });
  }, 120_000);

  test("the same 200 again → no HTTP request and no upstream call", async () => {
    relayCalls.length = 0;
    const arrivals = t.sandboxStats().arrivals;
    const results = (await callMany("BUY", 200)) as unknown[][][];
    expect(relayCalls).toEqual([]);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(results[7]?.[0]?.[0]).toBe("7 Main St, Austin TX");
  });

  test("after a reload (a new session) the relay's cache answers: one request, no upstream call", async () => {
    await page.reload();
    await page.waitForFunction(() => Boolean((window as any).CustomFunctions?._association?.m_mappings?.BUY));
    relayCalls.length = 0;
    const arrivals = t.sandboxStats().arrivals;
    await callMany("BUY", 200);
    expect(relayCalls.length).toBeLessThanOrEqual(2);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
  });

  test("a bad argument fails at once with #VALUE! and no request", async () => {
    relayCalls.length = 0;
    const r = await page.evaluate(() =>
      ((window as any).CustomFunctions._association.m_mappings.BUY as (...a: unknown[]) => Promise<unknown>)(
        [["x"]],
        -1,
        1,
        1,
        1,
        null,
        null,
        {},
      ).catch((e: { code: string; message: string }) => `${e.code} ${e.message}`),
    );
    expect(r).toMatch(/^#VALUE! \[STR_VALIDATION\] purchasePrice must be a number greater than 0/);
    expect(relayCalls).toEqual([]);
  });
});
