import fs from "node:fs";
import path from "node:path";
import { Browser, BrowserContext, Page } from "playwright-core";
import { addinBuild } from "../support/addin-build";
import { chromiumAvailable, launchChromium, routeOfficeJs, stubCustomFunctionsHost } from "../support/browser";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { FakeSeed, installFakeExcel } from "../support/fake-excel";
import { reservedPort } from "../support/ports";

/**
 * The built task pane in headless Chromium at the width of Excel's pane, served by the relay as in
 * production, on the relay's sandbox. Excel is not here: the page gets a recording stand-in for the
 * Excel object model (test/support/fake-excel.ts) before its bundles run, so `Excel.run` is that and
 * every sync and write is logged; OfficeRuntime.storage is a page-local store, empty at first (a
 * first run). Screenshots go to test-results/.
 */
const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
if (!chromiumAvailable())
  test("browser tests need Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)", () =>
    undefined);

const SHOTS = path.resolve(__dirname, "../../test-results");
const ROWS = 300;
const BAD_ROW = 17;
const HEADER = ["Property Address", "List Price ($)", "Beds", "Baths", "Sleeps", "Notes"];

function seed(): FakeSeed {
  const rows: unknown[][] = [HEADER];
  for (let i = 1; i <= ROWS; i++)
    rows.push([
      `${i} Pane Test St, Austin TX`,
      300000 + i * 1000,
      1 + (i % 4),
      1 + (i % 3),
      2 + (i % 6),
      i % 7 === 0 ? "corner lot" : "",
    ]);
  (rows[BAD_ROW] as unknown[])[1] = "call agent";
  return {
    sheets: [
      { name: "Portfolio", rows },
      { name: "Notes", rows: [["nothing here"]] },
    ],
    selection: { row: 3, column: 1 },
    syncLatencyMs: 2,
  };
}

describeWithChromium("the task pane in a real browser, on the real relay and its sandbox", () => {
  let t: TestRelay;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;

  /** Evaluates `body` in the page with `excel`, the stand-in's controller and log (FakeExcel). */
  const excel = <T>(body: string) =>
    page.evaluate(`(() => { const excel = window.__fakeExcel; return ${body}; })()`) as Promise<T>;
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `taskpane-${name}.png`), fullPage: true });
  const text = (selector: string) => page.locator(selector).innerText();
  const figure = async (label: string) =>
    page.locator(`#screen-estimate-list dt:text-is("${label}") + dd .figure`).innerText();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const reserved = await reservedPort();
    const port = reserved.port;
    base = `http://127.0.0.1:${port}`;
    // Paced at 40 a second so a run lasts long enough to watch and to cancel.
    t = await startRelay(
      {
        RELAY_PUBLIC_URL: base,
        RELAY_UPSTREAM_RPS: "40",
        // Two analysts, the pane's with a budget of its own: the Spend tab shows the split.
        RELAY_TOKENS: `analyst:${TEST_TOKEN},colleague:rt_colleague_0123456789ab`,
        RELAY_TOKEN_BUDGETS_USD_PER_DAY: "analyst:500",
      },
      { addinDir: await addinBuild(), sandbox: { timeScale: 0.002 } },
    );
    await reserved.release();
    await t.relay.app.listen({ host: "127.0.0.1", port });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 320, height: 900 }, deviceScaleFactor: 1 });
    await routeOfficeJs(context);
    await stubCustomFunctionsHost(context);
    await context.addInitScript(installFakeExcel, seed());
    page = await context.newPage();
    page.on("pageerror", (e) => process.stderr.write(`page error: ${e.message}\n`));
    await page.goto(`${base}/taskpane.html`);
    await page.locator("#tabs").waitFor({ state: "visible" });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  test("first run, no token: the Settings tab, saying what to paste, in no developer's words", async () => {
    await page.locator("#panel-settings").waitFor({ state: "visible" });
    expect(await page.locator("#tab-settings").getAttribute("aria-selected")).toBe("true");
    const firstRun = await text("#settings-first-run");
    expect(firstRun).toMatch(/Connect to your relay\..*an address and a token\. Paste both below, then Save/s);
    expect(firstRun).not.toMatch(/npx|npm|terminal/);
    // The labels name the Fluent inputs; the inputs themselves are inside them.
    expect(await page.getByLabel("Relay URL").locator("input").inputValue()).toBe(base);
    expect(await page.getByLabel("Relay token").locator("input").getAttribute("type")).toBe("password");
    await shot("1-first-run");
  });

  test("settings saved and tested: sandbox, version, today's spend, the relay's budget and the token's own; the token never shown back", async () => {
    await page.getByLabel("Relay token").locator("input").fill(TEST_TOKEN);
    await page.locator("#settings-save").click();
    await page.locator("#settings-result .ok").waitFor();
    const result = await text("#settings-result");
    expect(result).toMatch(/Connected/);
    expect(result).toMatch(/Mode\s+Sandbox\s+Simulated data/);
    expect(result).toMatch(/Relay version\s+\d+\.\d+/);
    expect(result).toMatch(/Today's spend\s+\$0\.00/);
    expect(result).toMatch(/Budget\s+\$1,000\.00\s+\$1,000\.00 left today/);
    // The pane's token has a budget of its own (analyst:500): shown beside the relay's.
    expect(result).toMatch(/Your budget\s+\$500\.00\s+\$500\.00 left today/);
    expect(await page.locator("#mode-badge").isVisible()).toBe(true);
    expect(await page.getByLabel("Relay token").locator("input").inputValue()).toBe("");
    expect(await text("#settings-token-hint")).toMatch(/A token is saved/);
    expect(await page.evaluate(() => (window as any).OfficeRuntime.storage.getItem("str.relayToken"))).toBe(TEST_TOKEN);
    expect(await page.content()).not.toContain(TEST_TOKEN);
    await shot("2-settings-tested");
  });

  test(`a ${ROWS}-row screening: columns recognised, the dry run's numbers, the progress bar moving, Cancel stopping the sends`, async () => {
    await page.locator("#tab-screen").click();
    await page.locator("#screen-read").click();
    await page.locator("#screen-table").waitFor({ state: "visible" });
    expect(await text("#screen-table-summary")).toContain(
      `Portfolio!A1:F${ROWS + 1}: ${ROWS} rows under the header in row 1`,
    );
    expect(await page.getByLabel("Column B, List Price ($), holds").inputValue()).toBe("purchasePriceUSD");
    expect(await page.getByLabel("Column E, Sleeps, holds").inputValue()).toBe("accomodates");
    expect(await page.getByLabel("Column F, Notes, holds").inputValue()).toBe("");

    // The result columns fold by group, each saying how many of its own are chosen, all or none at once.
    await page.locator("#screen-fields-summary").click();
    const group = page.locator("#screen-fields details.fields__group[open]").first();
    const name = (await group.locator("summary").innerText()).replace(/:.*$/, "");
    const total = await group.locator("input[type=checkbox]").count();
    const summary = await text("#screen-fields-summary");
    await group.getByRole("button", { name: `No ${name} columns` }).click();
    expect(await group.locator("summary").innerText()).toBe(`${name}: 0 of ${total}`);
    expect(await group.locator("input[type=checkbox]:checked").count()).toBe(0);
    expect(await text("#screen-fields-summary")).not.toBe(summary);
    await group.getByRole("button", { name: `All ${name} columns` }).click();
    expect(await group.locator("summary").innerText()).toBe(`${name}: ${total} of ${total}`);
    expect(await page.locator("#screen-fields details.fields__group").count()).toBeGreaterThan(3);
    // Back to the defaults for the rest of the test.
    await page.locator("#screen-read").click();
    await page.locator("#screen-table").waitFor({ state: "visible" });

    await page.locator("#screen-dry-run").click();
    await page.locator("#screen-estimate").waitFor({ state: "visible" });
    expect(await figure("Rows to send")).toBe(String(ROWS - 1));
    expect(await figure("Invalid rows")).toBe("1");
    expect(await figure("Cached")).toBe("0");
    expect(await figure("To create")).toBe(String(ROWS - 1));
    expect(await figure("Estimated cost")).toBe("$59.80");
    // The pane's token has its own 500 USD a day: the smaller of that and the relay's 1,000 is what is left.
    expect(await figure("Budget left today")).toBe("$500.00");
    expect(
      await page.locator(`#screen-estimate-list dt:text-is("Budget left today") + dd .figure-note`).innerText(),
    ).toBe("for this token");
    expect(await text("#screen-run")).toBe("Screen 299 rows — up to $59.80");
    expect(t.sandboxStats().arrivals).toBe(0);
    await shot("3-dry-run");

    const syncsBefore = await excel<number>("excel.syncs");
    await page.locator("#screen-run").click();
    const samples: number[] = [];
    for (let i = 0; i < 40 && samples.filter((v) => v > 0).length < 4; i++) {
      await page.waitForTimeout(400);
      samples.push(Number(await page.locator("#screen-bar").getAttribute("value")));
      if (samples.length === 3) await shot("4-running");
    }
    // The bar moves forward while the rows come in.
    const moving = samples.filter((v) => v > 0);
    expect(moving.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < moving.length; i++) expect(moving[i]).toBeGreaterThanOrEqual(moving[i - 1] as number);
    expect(moving.at(-1)).toBeGreaterThan(moving[0] as number);
    expect(moving.at(-1)).toBeLessThan(100);

    await page.locator("#screen-cancel").click();
    await page.locator("#screen-message fluent-message-bar").waitFor();
    // A request already on its way when Cancel was pressed may still land, later on a busy machine.
    await page.waitForTimeout(1000);
    const arrivals = t.sandboxStats().arrivals;
    await page.waitForTimeout(1500);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(arrivals).toBeLessThan(ROWS - 1);
    expect(await text("#screen-message")).toMatch(
      /Cancelled: nothing more was sent\..*Results in columns G–R of Portfolio/s,
    );
    await shot("5-cancelled");

    // What the stand-in recorded: the block beside the table, every row accounted for, in chunks.
    const values = await excel<unknown[][]>('excel.values("Portfolio")');
    expect(values[0]?.slice(6, 9)).toEqual(["STR status", "STR fetched", "Annual revenue, median"]);
    expect(values[0]?.[17]).toBe("Warnings (sandbox: simulated data)");
    const statuses = values.slice(1, ROWS + 1).map((r) => r[6]);
    expect(statuses[BAD_ROW - 1]).toBe("Failed");
    expect(values[BAD_ROW]?.[17]).toMatch(/^✖ \[STR_VALIDATION\] List Price \(\$\) must be an amount/);
    const created = statuses.filter((s) => s === "Created").length;
    expect(created).toBeGreaterThan(0);
    expect(created + statuses.filter((s) => s === "Stopped").length).toBe(ROWS - 1);
    const formats = await excel<string[][]>('excel.formats("Portfolio")');
    const firstCreated = statuses.indexOf("Created") + 1;
    expect(formats[firstCreated]?.slice(7, 10)).toEqual(["yyyy-mm-dd hh:mm", "$#,##0", "$#,##0"]);
    const writes = await excel<{ sync: number; rows: number; kind: string; column: number }[]>("excel.writes");
    const runWrites = writes.filter((w) => w.sync >= syncsBefore && w.column === 6 && w.kind === "values");
    for (const w of runWrites) expect(w.rows).toBeLessThanOrEqual(200);
    const runSyncs = (await excel<number>("excel.syncs")) - syncsBefore;
    // Rows come at 40 a second: chunks of up to 200 or what waited 3 s, never a sync per row.
    expect(runSyncs).toBeLessThan(12);
    expect(runSyncs).toBeLessThan(created / 5);
  }, 120_000);

  test("screened again: the rows answered before come from the cache, the rest are created, the block is replaced", async () => {
    const reports = t.sandboxStats().reports;
    await page.locator("#screen-read").click();
    await page.waitForFunction(() =>
      /earlier run in columns G–R are replaced/.test(
        document.getElementById("screen-table-summary")?.textContent ?? "",
      ),
    );
    await page.locator("#screen-dry-run").click();
    await page.locator("#screen-estimate").waitFor({ state: "visible" });
    const cached = Number(await figure("Cached"));
    const toCreate = Number(await figure("To create"));
    expect(cached).toBe(reports);
    expect(cached + toCreate).toBe(ROWS - 1);
    await page.locator("#screen-run").click();
    await page.locator("#screen-message fluent-message-bar").waitFor({ timeout: 60_000 });
    expect(await text("#screen-message")).toMatch(/Done with 1 failed row/);
    expect(t.sandboxStats()).toMatchObject({ reports: ROWS - 1, duplicates: 0 });
    const statuses = (await excel<unknown[][]>('excel.values("Portfolio")')).slice(1, ROWS + 1).map((r) => r[6]);
    expect(statuses.filter((s) => s === "Cached").length).toBe(cached);
    expect(statuses.filter((s) => s === "Created").length).toBe(toCreate);
    expect((await excel<unknown[][]>('excel.values("Portfolio")'))[0]?.length).toBe(18);
    await shot("6-done");
  }, 120_000);

  test("comparables of the selected row: photos, figures, the percentile chart; Insert as table makes a sheet with a table and a chart", async () => {
    await excel('excel.select("Portfolio", 5, 3)');
    await page.locator("#tab-comps").click();
    await page.locator("#comps-show").click();
    await page.locator("#comps-view").waitFor({ state: "visible" });
    expect(await text("#comps-title")).toMatch(
      /^5 Pane Test St, Austin TX · \d+ comparables · analysis [0-9a-f]{24} \(from Portfolio!D6\) · simulated data$/,
    );
    const items = page.locator("#comps-list li");
    expect(await items.count()).toBeGreaterThan(5);
    expect(await items.first().locator("img").getAttribute("src")).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/sandbox\/photos\//,
    );
    expect(await items.first().innerText()).toMatch(/\$[\d,]+\/yr · \$[\d,]+\/night · \d+% occupied · [\d.]+ mi/);
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>("#comps-list img"))
        .slice(0, 3)
        .every((i) => i.complete && i.naturalWidth > 0),
    );
    expect(await page.locator("#comps-chart svg rect").count()).toBe(4);
    // Twelve months: bars for sight, the same months as a table for screen readers, marked simulated.
    expect(await page.locator("#comps-season-chart svg rect").count()).toBe(12);
    expect(await page.locator("#comps-season-chart svg").getAttribute("aria-hidden")).toBe("true");
    expect(await page.locator("#comps-season-chart table tbody tr").count()).toBe(12);
    expect(await page.locator("#comps-season-chart figcaption").innerText()).toMatch(/SANDBOX: simulated data$/);
    expect(await page.locator("#comps-chart svg").getAttribute("aria-label")).toMatch(
      /^Annual revenue: 25th percentile \$[\d,.]+, median \$[\d,.]+, 75th percentile/,
    );
    await shot("7-comparables");

    await page.locator("#comps-insert").click();
    await page.waitForFunction(() =>
      /Inserted \d+ comparables/.test(document.getElementById("comps-insert-message")?.textContent ?? ""),
    );
    // The confirmation is where the click was, in view at 320 px, not under the listings past the fold.
    const box = await page.locator("#comps-insert-message").boundingBox();
    const viewport = page.viewportSize();
    expect(box && viewport && box.y >= 0 && box.y + box.height <= viewport.height).toBe(true);
    const names = await excel<string[]>("excel.sheetNames()");
    expect(names.at(-1)).toMatch(/^Comps [0-9a-f]{12}$/);
    expect(await excel<unknown[]>("excel.tables")).toHaveLength(1);
    expect((await excel<{ type: string }[]>("excel.charts"))[0]?.type).toBe("ColumnClustered");
  }, 60_000);

  test("refresh of two selected rows of the screened table: found, costed, then run again past the cache", async () => {
    await excel('excel.select("Portfolio", 2, 0, 2, 18)');
    const reports = t.sandboxStats().reports;
    await page.locator("#tab-refresh").click();
    await page.locator("#refresh-find").click();
    await page.locator("#refresh-plan").waitFor({ state: "visible" });
    expect(await text("#refresh-plan-list")).toMatch(/Screened tables\s+1\s+2 rows: Portfolio!A1:R301/);
    expect(await text("#refresh-run")).toBe("Refresh — up to $0.40");
    await shot("8-refresh-plan");
    await page.locator("#refresh-run").click();
    await page.waitForFunction(
      () => /Done\./.test(document.getElementById("refresh-message")?.textContent ?? ""),
      null,
      { timeout: 30_000 },
    );
    expect(t.sandboxStats().reports).toBe(reports + 2);
  }, 60_000);

  test("spend: today's spend against the budget, reports and AI steps, unknown-outcome calls", async () => {
    await page.locator("#tab-spend").click();
    await page.locator("#spend-view .meter").waitFor();
    const view = await text("#spend-view");
    const billed = ((ROWS - 1 + 2) * 0.2).toFixed(2);
    expect(view).toMatch(new RegExp(`Billed\\s+\\$${billed}\\s+${ROWS + 1} reports, 0 AI steps`));
    expect(view).toMatch(/Unknown outcome\s+\$0\.00/);
    expect(view).toMatch(/Relay's budget\s+\$1,000\.00/);
    // The meter is the token's own budget (analyst:500), with its own spend.
    expect(await page.locator("#spend-view [role=meter]").getAttribute("aria-valuenow")).toBe(
      String(Math.round((Number(billed) / 500) * 100)),
    );
    expect(view).toMatch(
      new RegExp(`Your budget\\s+\\$500\\.00\\s+\\$${(500 - Number(billed)).toFixed(2)} left today`),
    );
    const callers = await text("#spend-callers");
    expect(callers).toMatch(
      new RegExp(`analyst \\(you\\)\\s+\\$${billed} today\\s+\\$${billed} this month · own budget \\$500\\.00`),
    );
    expect(callers).toMatch(/colleague\s+\$0\.00 today\s+\$0\.00 this month/);
    expect(callers).not.toContain(TEST_TOKEN);
    await shot("9-spend");
  }, 30_000);

  test("enhance two selected rows of the screened table with AI: the steps checked, priced for this token, then run in place", async () => {
    await excel('excel.select("Portfolio", 0, 0)');
    await page.locator("#tab-screen").click();
    await page.locator("#screen-read").click();
    await page.waitForFunction(() =>
      /earlier run in columns G–R are replaced/.test(
        document.getElementById("screen-table-summary")?.textContent ?? "",
      ),
    );
    await page.locator("#enhance-box summary").click();
    await excel('excel.select("Portfolio", 5, 0, 2, 18)');
    // No step chosen: nothing priced.
    await page.locator("#enhance-comps").uncheck();
    await page.locator("#enhance-expenses").uncheck();
    await page.locator("#enhance-price").click();
    expect(await text("#enhance-message")).toMatch(/Choose at least one AI step/);
    expect(await page.locator("#enhance-estimate").isVisible()).toBe(false);

    await page.locator("#enhance-comps").check();
    await page.locator("#enhance-expenses").check();
    const before = t.sandboxStats();
    await page.locator("#enhance-price").click();
    await page.locator("#enhance-estimate").waitFor({ state: "visible" });
    const estimate = await text("#enhance-estimate-list");
    expect(estimate).toMatch(/Rows to enhance\s+2\s+\$0\.20 each at most/);
    expect(estimate).toMatch(/Price\s+\$0\.40/);
    const billed = (ROWS + 1) * 0.2;
    expect(estimate).toMatch(new RegExp(`Budget left today\\s+\\$${(500 - billed).toFixed(2)}\\s+for this token`));
    expect(await text("#enhance-run")).toBe("Enhance 2 rows — up to $0.40");
    expect(t.sandboxStats().arrivals).toBe(before.arrivals);
    await shot("9b-enhance-price");

    await page.locator("#enhance-run").click();
    await page.waitForFunction(() => /Done/.test(document.getElementById("enhance-message")?.textContent ?? ""), null, {
      timeout: 30_000,
    });
    expect(await text("#enhance-message")).toMatch(/^Success:\s+Done\./);
    expect(t.sandboxStats().aiFunctions).toBe(before.aiFunctions + 4);
    expect(await page.locator("#enhance-estimate").isVisible()).toBe(false);
  }, 60_000);

  test("results that would cover the user's cells: the estimate asks, and by default they go further right", async () => {
    // A small table on Notes, and a note typed under no header in a column the results would take.
    await page.evaluate(async () => {
      const fake = (
        window as unknown as { __fakeExcel: { run: (batch: (ctx: any) => Promise<void>) => Promise<void> } }
      ).__fakeExcel;
      await fake.run(async (ctx) => {
        const sheet = ctx.workbook.worksheets.getItem("Notes");
        sheet.getRangeByIndexes(2, 0, 3, 5).values = [
          ["Address", "Price", "Beds", "Baths", "Guests"],
          ["1 Note St, Austin TX", 350000, 2, 1, 4],
          ["2 Note St, Austin TX", 360000, 2, 1, 4],
        ];
        sheet.getRangeByIndexes(3, 6, 1, 1).values = [["call back"]];
        await ctx.sync();
      });
    });
    await excel('excel.select("Notes", 2, 0)');
    await page.locator("#tab-screen").click();
    await page.locator("#screen-read").click();
    await page.waitForFunction(() =>
      /Notes!A3:E5/.test(document.getElementById("screen-table-summary")?.textContent ?? ""),
    );
    await page.locator("#screen-dry-run").click();
    await page.locator("#screen-estimate").waitFor({ state: "visible" });
    await page.locator("#screen-overwrite").waitFor({ state: "visible" });
    expect(await text("#screen-overwrite")).toMatch(
      /would cover 1 cell of yours in columns F–Q \(first Notes!G4: "call back"\).*in columns H–S instead.*Overwrite that cell/s,
    );
    await shot("10-overwrite-question");
    await page.locator("#screen-run").click();
    await page.waitForFunction(
      () => /Results in columns/.test(document.getElementById("screen-message")?.textContent ?? ""),
      null,
      { timeout: 30_000 },
    );
    expect(await text("#screen-message")).toMatch(/Results in columns H–S of Notes/);
    const values = await excel<unknown[][]>('excel.values("Notes")');
    expect(values[3]?.[6]).toBe("call back");
    expect(values[2]?.[7]).toBe("STR status");
    expect(values[3]?.[7]).toBe("Created");
  }, 60_000);

  test("a refresh whose results would now reach the user's cells: the plan asks, and by default they go further right", async () => {
    // The screened table's Warnings header replaced by a column of the user's notes.
    await page.evaluate(async () => {
      const fake = (
        window as unknown as { __fakeExcel: { run: (batch: (ctx: any) => Promise<void>) => Promise<void> } }
      ).__fakeExcel;
      await fake.run(async (ctx) => {
        const sheet = ctx.workbook.worksheets.getItem("Portfolio");
        sheet.getRangeByIndexes(0, 17, 1, 1).values = [["My notes"]];
        sheet.getRangeByIndexes(2, 17, 1, 1).values = [["ring Tuesday"]];
        await ctx.sync();
      });
    });
    await excel('excel.select("Portfolio", 2, 0, 2, 18)');
    const reports = t.sandboxStats().reports;
    await page.locator("#tab-refresh").click();
    await page.locator("#refresh-find").click();
    await page.locator("#refresh-overwrite").waitFor({ state: "visible" });
    expect(await text("#refresh-overwrite")).toMatch(
      /would cover \d+ cells of yours \(first Portfolio!R1: "My notes"\).*further right.*Overwrite those \d+ cells/s,
    );
    await shot("11-refresh-overwrite-question");
    await page.locator("#refresh-run").click();
    await page.waitForFunction(
      () => /Done\./.test(document.getElementById("refresh-message")?.textContent ?? ""),
      null,
      { timeout: 30_000 },
    );
    expect(t.sandboxStats().reports).toBe(reports + 2);
    const values = await excel<unknown[][]>('excel.values("Portfolio")');
    expect(values[0]?.[17]).toBe("My notes");
    expect(values[2]?.[17]).toBe("ring Tuesday");
    expect(values[0]?.[18]).toBe("STR status");
    expect(values[2]?.[18]).toBe("Created");
  }, 60_000);
});
