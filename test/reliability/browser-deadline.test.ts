import { Browser, Page, Request } from "playwright-core";
import { addinBuild } from "../support/addin-build";
import { chromiumAvailable, launchChromium, routeOfficeJs, stubCustomFunctionsHost } from "../support/browser";
import { reservedPort } from "../support/ports";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBodyWithPhotos, startRelay } from "../support/relay";

/**
 * The built add-in in headless Chromium against a relay whose batch answers end after 3 s
 * (RELAY_MAX_REQUEST_SECONDS=3): a workbook of 2,500 new STR.BUY formulas, and 20 formulas with AI
 * steps whose AI the sandbox holds past the deadline. Every formula resolves, no HTTP request from
 * the page lasts past the deadline and a grace for a busy machine (8 s; the AI steps take 10), the
 * service is sent each request once, and the ledger is its bill.
 * (Excel cuts a custom function's request at about 60 s; Microsoft's office-js issues 934 and 1184.)
 * Paced: it asserts request times, which a neighbour suite's build or browser would stretch.
 */
const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
if (!chromiumAvailable())
  test("browser tests need Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)", () =>
    undefined);

const DEADLINE_SECONDS = 3;
/** How long past the deadline a request may last: a busy machine ends it and reads its last bytes late. */
const GRACE_MS = 5000;
/**
 * The AI steps take this much longer than the deadline and its grace, so their formulas come back
 * pending at least once, and a request the deadline did not end fails the bound.
 */
const AI_EXTRA_MS = 10_000;
const PLAIN = 2500;
const AI_CREATES = 10;
const ENHANCES = 10;

interface Timed {
  url: string;
  status: number | undefined;
  /** From the request's start to the last byte of its answer, by Chromium's own clock (-1: none came). */
  ms: number;
  failure: string | undefined;
}

describeWithChromium("formulas whose work outlasts the relay's deadline, in a real browser", () => {
  let t: TestRelay;
  let browser: Browser;
  let page: Page;
  let base: string;
  const done: Timed[] = [];
  const recording: Promise<unknown>[] = [];

  beforeAll(async () => {
    const reserved = await reservedPort();
    const port = reserved.port;
    base = `http://127.0.0.1:${port}`;
    t = await startRelay(
      { RELAY_PUBLIC_URL: base, RELAY_MAX_REQUEST_SECONDS: String(DEADLINE_SECONDS) },
      {
        addinDir: await addinBuild(),
        sandbox: {
          timeScale: 0.002,
          faults: { aiFailureRate: 0, aiTimeoutRate: 0, aiExtraLatencyMs: AI_EXTRA_MS },
        },
      },
    );
    await reserved.release();
    await t.relay.app.listen({ host: "127.0.0.1", port });
    browser = await launchChromium();
    const context = await browser.newContext();
    await routeOfficeJs(context);
    await stubCustomFunctionsHost(context, { url: base, token: TEST_TOKEN });
    page = await context.newPage();
    const relayRequest = (r: Request) => r.url().startsWith(`${base}/v1/`);
    const record = (r: Request, failure?: string) =>
      recording.push(
        r
          .response()
          .then((response) =>
            done.push({ url: r.url(), status: response?.status(), ms: r.timing().responseEnd, failure }),
          ),
      );
    page.on("requestfinished", (r) => relayRequest(r) && record(r));
    // Chromium reports a fetch whose streamed body was read to its end through a reader as
    // net::ERR_ABORTED once the reader lets go, though every byte arrived (the same answer read with
    // text() is "finished"): such a request counts when it has its status and its last byte's time.
    page.on("requestfailed", (r) => relayRequest(r) && record(r, r.failure()?.errorText ?? "failed"));
    await page.goto(`${base}/taskpane.html`);
    await page.waitForFunction(() => Boolean((window as any).CustomFunctions?._association?.m_mappings?.BUY));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  test(`${PLAIN} new STR.BUY, ${AI_CREATES} STR.BUY with AI steps and ${ENHANCES} STR.ENHANCE all resolve; no request outlasts the deadline (and a grace); each sent once`, async () => {
    // The analyses the STR.ENHANCE formulas enrich, made beforehand as a workbook's earlier formulas would have.
    const photoBodies = Array.from({ length: AI_CREATES + ENHANCES }, (_, n) => buyBodyWithPhotos(true, n * 1000));
    const enhanceIds: string[] = [];
    for (const body of photoBodies.slice(AI_CREATES)) {
      const made = await t.post(BUY_PATH, body);
      expect(made.status).toBe(200);
      enhanceIds.push(made.json.data._id as string);
    }
    const aiAddresses = photoBodies.slice(0, AI_CREATES).map((b) => b.fullAddress);

    const started = Date.now();
    const results = await page.evaluate(
      async ({ plain, aiAddresses, enhanceIds }) => {
        const m = (window as any).CustomFunctions._association.m_mappings as Record<
          string,
          (...args: unknown[]) => Promise<unknown[][]>
        >;
        const fields = [["fullAddress, revenue.p50"]];
        // Every formula of the recalculation is called in one tick, as Excel does.
        const calls = [
          ...Array.from({ length: plain }, (_, i) =>
            m.BUY!([[`${i} Deadline Way, Austin TX`]], 450000, 3, 2, 8, null, fields, {}),
          ),
          ...aiAddresses.map((a) =>
            m.BUY!([[a]], 450000, 3, 2, 8, [["addAIComps=TRUE; addAIExpenseEstimates=TRUE"]], fields, {}),
          ),
          ...enhanceIds.map((id) => m.ENHANCE!(id, true, true, [["_id, revenue.p50"]], {})),
        ];
        const settled = await Promise.all(
          calls.map((c) => c.catch((e: { code?: string; message?: string }) => `#ERR ${e.code} ${e.message}`)),
        );
        return settled.map((r) => (Array.isArray(r) ? (r[0] as unknown[]) : r));
      },
      { plain: PLAIN, aiAddresses, enhanceIds },
    );
    const seconds = (Date.now() - started) / 1000;

    // Every formula resolved to its own row, none to an error.
    expect(results.filter((r) => typeof r === "string")).toEqual([]);
    const rows = results as unknown[][];
    rows.slice(0, PLAIN).forEach((row, i) => expect(row[0]).toBe(`${i} Deadline Way, Austin TX`));
    rows.slice(PLAIN, PLAIN + AI_CREATES).forEach((row, i) => expect(row[0]).toBe(aiAddresses[i]));
    rows.slice(PLAIN + AI_CREATES).forEach((row, i) => expect(row[0]).toBe(enhanceIds[i]));
    rows.forEach((row) => expect(typeof row[1]).toBe("number"));

    // No request outlived the deadline (with its grace), and the deadline was what ended some: more
    // requests than the batches alone would make.
    await Promise.all(recording);
    expect(done.length).toBeGreaterThan(3);
    const incomplete = done.filter(
      (r) => r.status !== 200 || r.ms < 0 || (r.failure && r.failure !== "net::ERR_ABORTED"),
    );
    expect(incomplete).toEqual([]);
    expect(done.every((r) => r.url.endsWith("/v1/batch"))).toBe(true);
    const longest = Math.max(...done.map((r) => r.ms));
    expect(longest).toBeLessThan(DEADLINE_SECONDS * 1000 + GRACE_MS);
    expect(seconds).toBeGreaterThan(AI_EXTRA_MS / 1000);

    // The service saw each request once: one create per request, one enhance per analysis.
    const state = t.relay.sandbox?.state;
    if (!state) throw new Error("no embedded sandbox");
    expect(state.duplicateCreates()).toBe(0);
    expect(state.creates.size).toBe(PLAIN + AI_CREATES + ENHANCES);
    const enhances = state.billing.filter((b) => b.op === "enhance").map((b) => b.analysisId);
    expect(enhances.sort()).toEqual([...enhanceIds].sort());
    // Every arrival was processed once, apart from those the service's own rate limit turned away
    // unprocessed (429, free), which the relay sends again: a loaded host bunches sends now and then.
    expect(state.statuses.get(200)).toBe(PLAIN + AI_CREATES + 2 * ENHANCES);
    expect(state.arrivals.length - (state.statuses.get(429) ?? 0)).toBe(PLAIN + AI_CREATES + 2 * ENHANCES);
    // Every AI step completed and was billed: the 20 AI formulas really ran them.
    expect(t.sandboxStats().aiFunctions).toBe(2 * (AI_CREATES + ENHANCES));

    // The relay's ledger is the service's bill.
    const ledger = await t.relay.store.ledger.rows();
    expect(ledger.reduce((sum, row) => sum + row.cents, 0)).toBe(t.sandboxStats().billedCents);
    process.stdout.write(
      `browser-deadline: ${rows.length} formulas in ${seconds.toFixed(1)} s, ${done.length} requests, longest ${longest.toFixed(0)} ms\n`,
    );
  }, 240_000);
});
