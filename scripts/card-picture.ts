/*
 * The picture of STR.BUY's card in README.md (docs/images/card.png): the cells the card spills for
 * the README's example, from a relay on its sandbox (simulated data), drawn as Excel draws them at
 * its default column width (64 px, Calibri 11), with the card's number formats applied by hand.
 * Column A is widened, as a reader does once, to show the labels; the values keep Excel's default.
 * Calibri's metrics come from Carlito (Debian's fonts-crosextra-carlito), so what fits is what fits in Excel.
 *
 *   node scripts/ts-run.js scripts/card-picture.ts   → docs/images/card.png
 */
import fs from "node:fs";
import path from "node:path";
import { RelayAnswer } from "../src/contract";
import { FormattedCell, Grid, analysisCard } from "../src/sheet";
import { launchChromium } from "../test/support/browser";
import { startRelay } from "../test/support/relay";

const OUT = path.resolve(__dirname, "../docs/images/card.png");
const EXAMPLE = {
  fullAddress: "12 Main St, Austin TX",
  purchasePriceUSD: 450000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
};
const LABEL_WIDTH = 190;
const DEFAULT_WIDTH = 64;

async function main(): Promise<void> {
  const t = await startRelay();
  try {
    const answer = RelayAnswer.parse((await t.post("/v1/external/analysis/create/buy", EXAMPLE)).json);
    const card = analysisCard(answer, { strategy: "buy" });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 1200 }, deviceScaleFactor: 1 });
      await page.setContent(gridHtml(card));
      // Excel shows a number that does not fit its column as #### (text is cut at the cell's edge).
      await page.evaluate(() => {
        for (const div of document.querySelectorAll<HTMLElement>("td.num div"))
          if (div.scrollWidth > div.clientWidth)
            div.textContent = "#".repeat(Math.max(1, Math.floor(div.clientWidth / 7)));
      });
      fs.mkdirSync(path.dirname(OUT), { recursive: true });
      await page.locator("table").screenshot({ path: OUT });
    } finally {
      await browser.close();
    }
  } finally {
    await t.close();
  }
  process.stdout.write(`${path.relative(process.cwd(), OUT)}\n`);
}

/** A cell as Excel shows it under the card's formats. */
function shown(c: FormattedCell): string {
  const v = c.value;
  if (typeof v !== "number") return String(v);
  const f = c.format ?? "General";
  if (f.includes("%")) return `${(v * 100).toFixed(1)}%`;
  if (f.includes("$")) return `${v < 0 ? "-" : ""}$${Math.abs(Math.round(v)).toLocaleString("en-US")}`;
  if (f === "0.00") return v.toFixed(2);
  if (f === "0.0") return v.toFixed(1);
  const date = new Date(Date.UTC(1899, 11, 30) + Math.round(v * 86_400_000));
  if (f === "m/d/yy") return `${date.getUTCMonth() + 1}/${date.getUTCDate()}/${String(date.getUTCFullYear()).slice(2)}`;
  if (f === "h:mm") return `${date.getUTCHours()}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
  return String(Math.round(v));
}

/** Excel's grid: column letters, row numbers, text left, numbers right, cut at the cell's edge. */
function gridHtml(card: Grid): string {
  const width = card[0]?.length ?? 0;
  const letters = Array.from({ length: width }, (_, i) => String.fromCharCode(65 + i));
  const head = `<tr><th class="corner"></th>${letters.map((l) => `<th>${l}</th>`).join("")}</tr>`;
  const rows = card.map(
    (row, r) =>
      `<tr><th class="n">${r + 1}</th>${row
        .map((c) => `<td class="${typeof c.value === "number" ? "num" : ""}"><div>${escape(shown(c))}</div></td>`)
        .join("")}</tr>`,
  );
  return `<!doctype html><style>
    body { margin: 0; background: #fff; font: 11pt Calibri, Carlito, sans-serif; }
    table { border-collapse: collapse; table-layout: fixed; }
    col.a { width: ${LABEL_WIDTH}px; } col.v { width: ${DEFAULT_WIDTH}px; } col.h { width: 32px; }
    th, td { border: 1px solid #d4d4d4; height: 20px; padding: 0 2px; overflow: hidden; white-space: nowrap; }
    th { background: #f3f3f3; color: #444; font-weight: normal; text-align: center; }
    td div { overflow: hidden; }
    td.num { text-align: right; }
  </style><table style="width: ${32 + LABEL_WIDTH + DEFAULT_WIDTH * (width - 1)}px"><colgroup><col class="h"><col class="a">${letters
    .slice(1)
    .map(() => '<col class="v">')
    .join("")}</colgroup>${head}${rows.join("")}</table>`;
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
