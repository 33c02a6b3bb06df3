/*
 * The pictures in README.md and docs/install.md, made from the real production bundle: the pane
 * served by a relay on its sandbox (simulated data), in headless Chromium (Debian's, as the browser
 * tests run it), at the pane's narrowest and a wide width, in light and dark. Excel is the browser
 * tests' stand-in workbook (test/support/fake-excel.ts); the screened sheet is drawn from the
 * cells the pane wrote into it, as a plain grid with Excel's number formats applied by hand.
 *
 *   node scripts/ts-run.js scripts/screenshots.ts   → docs/images/*.png
 */
import fs from "node:fs";
import path from "node:path";
import { Page } from "playwright-core";
import { addinBuild } from "../test/support/addin-build";
import { launchChromium, routeOfficeJs, stubCustomFunctionsHost } from "../test/support/browser";
import { reservedPort } from "../test/support/ports";
import { TEST_TOKEN, startRelay } from "../test/support/relay";
import { installFakeExcel } from "../test/support/fake-excel";

const OUT = path.resolve(__dirname, "../docs/images");
const WIDTHS = [320, 450] as const;
const THEMES = ["light", "dark"] as const;

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const reserved = await reservedPort();
  const base = `http://127.0.0.1:${reserved.port}`;
  const t = await startRelay(
    { RELAY_PUBLIC_URL: base, RELAY_TOKENS: `analyst:${TEST_TOKEN}`, RELAY_TOKEN_BUDGETS_USD_PER_DAY: "analyst:25" },
    { addinDir: await addinBuild() },
  );
  await reserved.release();
  await t.relay.app.listen({ host: "127.0.0.1", port: reserved.port });
  const browser = await launchChromium();
  try {
    for (const theme of THEMES)
      for (const width of WIDTHS) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme });
        await routeOfficeJs(context);
        await stubCustomFunctionsHost(context, { url: base, token: TEST_TOKEN });
        await context.addInitScript(installFakeExcel, { sheets: [{ name: "Sheet1", rows: [] }] });
        const page = await context.newPage();
        await page.goto(`${base}/taskpane.html`);
        await page.locator("#tabs").waitFor({ state: "visible" });
        const name = (state: string) => path.join(OUT, `pane-${state}-${width}-${theme}.png`);
        await analyzeOneProperty(page);
        await page.screenshot({ path: name("start"), fullPage: true });
        await screenTheSample(page);
        await page.screenshot({ path: name("screened"), fullPage: true });
        if (theme === "light" && width === 450) await drawScreenedSheet(page, path.join(OUT, "sheet-screened.png"));
        await context.close();
      }
  } finally {
    await browser.close();
    await t.close();
  }
  process.stdout.write(`screenshots in ${path.relative(process.cwd(), OUT)}\n`);
}

async function analyzeOneProperty(page: Page): Promise<void> {
  const values = ["1100 S Lamar Blvd, Austin TX", "$489,000", "2", "2", "6"];
  const ids = ["fullAddress", "purchasePriceUSD", "bedrooms", "bathrooms", "accomodates"];
  for (const [i, id] of ids.entries()) await page.locator(`#start-${id} input`).fill(values[i] as string);
  await page.locator("#start-price").click();
  await page.locator("#start-buy").waitFor({ state: "visible" });
  await page.locator("#start-buy").click();
  await page.locator("#start-result").waitFor({ state: "visible" });
  await page.evaluate(() => window.scrollTo(0, 0));
}

async function screenTheSample(page: Page): Promise<void> {
  await page.locator("#start-sample").click();
  await page.locator("#start-sample-message fluent-message-bar").waitFor();
  await page.locator("#tab-screen").click();
  await page.locator("#screen-read").click();
  await page.locator("#screen-table").waitFor({ state: "visible" });
  await page.locator("#screen-max-bid").fill("cash-on-cash>=8%");
  await page.locator("#screen-dry-run").click();
  await page.locator("#screen-run").waitFor({ state: "visible" });
  await page.locator("#screen-run").click();
  await page.locator("#screen-summary-list").waitFor({ timeout: 60_000 });
  // The run's end gives the buttons back.
  await page.locator("#screen-read:not([disabled])").waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
}

/** The sample sheet as the pane left it: a grid of its cells, numbers in their formats. */
async function drawScreenedSheet(page: Page, file: string): Promise<void> {
  const sheet = await page.evaluate(() => {
    const fake = (
      window as unknown as { __fakeExcel: { values(s: string): unknown[][]; formats(s: string): string[][] } }
    ).__fakeExcel;
    return { values: fake.values("STR sample"), formats: fake.formats("STR sample") };
  });
  const html = sheetHtml(sheet.values, sheet.formats);
  const view = await page.context().newPage();
  await view.setViewportSize({ width: 1400, height: 300 });
  await view.setContent(html);
  await view.locator("table").screenshot({ path: file });
  await view.close();
}

/** Columns shown: the listing, then the figures an investor reads first. */
const SHOWN = ["Address", "List price", "Beds", "STR status", "STR fetched", "Annual revenue, median"];

function sheetHtml(values: unknown[][], formats: string[][]): string {
  const header = (values[0] ?? []).map(String);
  const keep = header.flatMap((h, i) =>
    SHOWN.includes(h) || /cash flow|Cash-on-cash|Cap rate|Max bid/i.test(h) ? [i] : [],
  );
  const cell = (v: unknown, f: string | undefined) => {
    if (typeof v !== "number") return String(v ?? "");
    if (f?.includes("%")) return `${(v * 100).toFixed(1)}%`;
    if (f?.includes("$")) return `${v < 0 ? "-" : ""}$${Math.abs(Math.round(v)).toLocaleString("en-US")}`;
    if (f?.startsWith("yyyy"))
      return new Date(Date.UTC(1899, 11, 30) + v * 86_400_000).toISOString().slice(0, 16).replace("T", " ");
    return v.toLocaleString("en-US");
  };
  const rows = values.map(
    (row, r) =>
      `<tr>${keep.map((c) => (r === 0 ? `<th>${String(row[c] ?? "")}</th>` : `<td>${cell(row[c], formats[r]?.[c])}</td>`)).join("")}</tr>`,
  );
  return `<!doctype html><style>
    body { margin: 0; font: 13px "Segoe UI", Calibri, Arial, sans-serif; background: #fff; }
    table { border-collapse: collapse; }
    th, td { border: 1px solid #d4d4d4; padding: 3px 8px; white-space: nowrap; }
    th { background: #f3f3f3; font-weight: 600; text-align: left; }
    td { text-align: right; } td:first-child, td:nth-child(4) { text-align: left; }
  </style><table>${rows.join("")}</table>`;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
