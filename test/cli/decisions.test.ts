import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { BID_METRICS, findBidMetric, whatIf } from "../../src/model";
import { analysisOf } from "../../src/sheet";
import { TEST_TOKEN, TestRelay, buyBodyWithPhotos, startRelay } from "../support/relay";
import { columnOf, readWorkbook, screen, sheet, summaryOf, tempDir, testEnv } from "./support";

/**
 * From figures to decisions in str-screen: --max-bid's column, --refresh-older-than's aged rows and
 * --enhance's AI steps, through a real relay on its sandbox; each priced by the dry run, and the
 * enhancement's price equal to what the relay's ledger bills, to the cent.
 */
describe("str-screen decisions: --max-bid, --refresh-older-than, --enhance", () => {
  let t: TestRelay;
  let url: string;
  const dir = tempDir();
  const env = () => testEnv(path.join(dir, "unused"), { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN });

  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const address = t.relay.app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => t.close());

  /** Each table's properties are new to the relay: addresses are taken in turn. */
  let next = 0;

  /** A buy table of `n` properties whose addresses have photos enough for AI comparables, screened once. */
  async function screened(name: string, n: number, extra: string[] = []): Promise<string> {
    const input = path.join(dir, `${name}-in.xlsx`);
    const book = new ExcelJS.Workbook();
    const ws = book.addWorksheet("Deals");
    ws.addRow(["Address", "Price", "Beds", "Baths", "Sleeps"]);
    for (let i = 0; i < n; i++) {
      const body = buyBodyWithPhotos(true, next);
      next = Number(/^(\d+)/.exec(body.fullAddress)?.[1]) - 12 + 1;
      ws.addRow([body.fullAddress, 300000 + 25000 * i, 3, 2, 6]);
    }
    await book.xlsx.writeFile(input);
    const out = path.join(dir, `${name}.xlsx`);
    const first = await screen([input, "--out", out, ...extra], env());
    expect(first.code).toBe(0);
    return out;
  }

  const spentToday = async () => (await t.get("/v1/usage")).json.today.costUSD as number;

  test("--max-bid adds a column where WHATIF at the price meets the target and 100 USD more does not", async () => {
    const out = await screened("maxbid", 3, ["--max-bid", "cash-on-cash>=8%"]);
    const ws = sheet(await readWorkbook(out), "Deals");
    const bidColumn = columnOf(ws, 1, "Max bid (cash-on-cash>=8%)");
    const idColumn = columnOf(ws, 1, "Analysis id");
    const metric = findBidMetric("cash-on-cash")!;
    let checked = 0;
    for (let r = 2; r <= 4; r++) {
      const bid = ws.getRow(r).getCell(bidColumn);
      const id = ws.getRow(r).getCell(idColumn).value as string;
      const analysis = analysisOf((await t.get(`/v1/analyses/${id}`)).json)!;
      if (typeof bid.value !== "number") continue;
      expect(bid.numFmt).toMatch(/\$#,##0/);
      const at = whatIf(analysis, { purchasePriceUSD: bid.value });
      const above = whatIf(analysis, { purchasePriceUSD: bid.value + 100 });
      if (!at.ok || !above.ok) throw new Error("what-if failed");
      expect(BID_METRICS[metric].of(at.analysis)!).toBeGreaterThanOrEqual(8 - 0.01);
      expect(BID_METRICS[metric].of(above.analysis)!).toBeLessThan(8);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
    // Refreshed in place without --max-bid: the column is found by its header and kept.
    const again = await screen([out, "--out", out], env());
    expect(again.code).toBe(0);
    expect(columnOf(sheet(await readWorkbook(out), "Deals"), 1, "Max bid (cash-on-cash>=8%)")).toBe(bidColumn);
  }, 60_000);

  test("--refresh-older-than buys again only rows fetched longer ago, priced by the dry run", async () => {
    const out = await screened("aged", 3);
    const book = await readWorkbook(out);
    const ws = sheet(book, "Deals");
    const fetched = columnOf(ws, 1, "STR fetched");
    ws.getRow(3).getCell(fetched).value = new Date(Date.UTC(2020, 0, 1, 9, 0));
    await book.xlsx.writeFile(out);

    const dry = await screen([out, "--dry-run", "--refresh-older-than", "30"], env());
    expect(dry.stderr).toMatch(/Aged: 1 of 3 rows/);
    expect(dry.stdout).toMatch(/Cached\s+2/);
    expect(dry.stdout).toMatch(/To create\s+1/);
    expect(dry.stdout).toMatch(/Estimated cost\s+\$0\.20/);

    const before = await spentToday();
    const run = await screen([out, "--out", out, "--refresh-older-than", "30"], env());
    expect(run.code).toBe(0);
    expect(summaryOf(await readWorkbook(out))).toMatchObject({ Created: 1, Cached: 2, "Cost (USD)": 0.2 });
    expect(Math.round((await spentToday()) * 100) - Math.round(before * 100)).toBe(20);
    const refreshed = sheet(await readWorkbook(out), "Deals")
      .getRow(3)
      .getCell(fetched).value as Date;
    expect(refreshed.getUTCFullYear()).toBeGreaterThan(2020);
  }, 60_000);

  test("--enhance: the dry run's price is what the ledger bills, to the cent; rows without an id are kept", async () => {
    const out = await screened("enhance", 3);
    const book = await readWorkbook(out);
    const ws = sheet(book, "Deals");
    const idColumn = columnOf(ws, 1, "Analysis id");
    const revenue = columnOf(ws, 1, "Annual revenue, median");
    ws.getRow(4).getCell(idColumn).value = null;
    const keptRevenue = ws.getRow(4).getCell(revenue).value;
    await book.xlsx.writeFile(out);

    const dry = await screen([out, "--dry-run", "--enhance", "comps,expenses"], env());
    expect(dry.stderr).toMatch(/Enhance: 2 rows with an analysis id; 1 rows without one are kept/);
    const planned = Number(/Estimated cost\s+\$(\d+\.\d\d)/.exec(dry.stdout)?.[1]);
    expect(planned).toBe(0.4);

    const before = await spentToday();
    const run = await screen([out, "--out", out, "--enhance", "comps,expenses"], env());
    expect(run.code).toBe(0);
    const billed = Math.round((await spentToday()) * 100) - Math.round(before * 100);
    expect(billed).toBe(Math.round(planned * 100));
    const after = sheet(await readWorkbook(out), "Deals");
    expect(after.getRow(4).getCell(revenue).value).toEqual(keptRevenue);
    expect(summaryOf(await readWorkbook(out))).toMatchObject({ Created: 2, "Cost (USD)": 0.4 });
    // Enhanced again: the relay's cache answers, free.
    const repeat = await screen([out, "--dry-run", "--enhance", "comps,expenses"], env());
    expect(repeat.stdout).toMatch(/Estimated cost\s+\$0\.00/);
  }, 60_000);

  test("an enhancement whose every AI step fails is free, keeps the row's figures, and is priced again to retry", async () => {
    const failing = await startRelay({}, { sandbox: { faults: { aiFailureRate: 1, aiTimeoutRate: 0 } } });
    try {
      await failing.relay.app.listen({ host: "127.0.0.1", port: 0 });
      const address = failing.relay.app.server.address();
      const failingUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
      const failingEnv = testEnv(path.join(dir, "unused"), { STR_RELAY_URL: failingUrl, STR_RELAY_TOKEN: TEST_TOKEN });
      const input = path.join(dir, "failing-in.csv");
      const body = buyBodyWithPhotos(true, next);
      fs.writeFileSync(input, `Address,Price,Beds,Baths,Sleeps\n"${body.fullAddress}",450000,3,2,6\n`);
      const out = path.join(dir, "failing.xlsx");
      expect((await screen([input, "--out", out], failingEnv)).code).toBe(0);
      const ws = sheet(await readWorkbook(out), "Screening");
      const revenue = ws.getRow(2).getCell(columnOf(ws, 1, "Annual revenue, median")).value;
      expect(typeof revenue).toBe("number");

      const run = await screen([out, "--out", out, "--enhance", "comps,expenses"], failingEnv);
      expect(run.stderr).toMatch(/1 rows were not enhanced: every AI step failed, nothing was billed/);
      const after = sheet(await readWorkbook(out), "Screening");
      expect(after.getRow(2).getCell(columnOf(after, 1, "Annual revenue, median")).value).toBe(revenue);
      expect(String(after.getRow(2).getCell(columnOf(after, 1, /^Warnings/)).value)).toMatch(
        /Not enhanced, nothing billed \(enhance it again to retry\)/,
      );
      expect(summaryOf(await readWorkbook(out))).toMatchObject({ "Cost (USD)": 0 });
      expect(failing.sandboxStats().aiFunctions).toBe(0);
      const retry = await screen([out, "--dry-run", "--enhance", "comps,expenses"], failingEnv);
      expect(retry.stdout).toMatch(/Estimated cost\s+\$0\.20/);
    } finally {
      await failing.close();
    }
  }, 60_000);

  test("usage errors name the option and the rule", async () => {
    const cases: [string[], RegExp][] = [
      [["--max-bid", "cash-on-cash>8%"], /--max-bid: ">" is not supported, only >=/],
      [["--max-bid", "roi>=8%"], /--max-bid: "roi" is not a metric \(cash-on-cash, dscr, cap-rate, cash-flow\)/],
      [["--max-bid", "cash-on-cash>=8"], /cash-on-cash is a percent: write the target with %/],
      [["--max-bid", "dscr>=125%"], /dscr is a ratio such as 1\.25/],
      [["--enhance", "photos"], /--enhance must list the AI steps: comps, expenses or comps,expenses; got "photos"/],
      [["--refresh-older-than", "soon"], /--refresh-older-than must be a number of days, 0 or more; got "soon"/],
      [["--refresh", "--refresh-older-than", "7"], /--refresh and --refresh-older-than cannot both be given/],
    ];
    for (const [args, message] of cases) {
      const r = await screen([path.join(dir, "x.csv"), "--dry-run", ...args], env());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
