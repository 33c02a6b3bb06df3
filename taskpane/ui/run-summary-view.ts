import { DealFigure, RunSummary } from "../run-summary";
import { SEND_UNUSUAL_LABEL } from "../screen";
import { figures, h } from "./dom";

/**
 * A finished screening's summary, under its message: the deals first (the max-bid rule, the best
 * and worst cash-on-cash), then the rows held back and the failed ones with why.
 */
export function runSummaryElement(s: RunSummary): HTMLElement {
  const list = h("dl", { class: "figures", id: "screen-summary-list" });
  const rows: [string, string, string?][] = [["Analysed", rowCount(s.analysed)]];
  if (s.maxBid)
    rows.push([
      "Meet the max bid",
      `${s.maxBid.meet} of ${s.maxBid.of}`,
      `asking price at or under the ${s.maxBid.label.replace(/^Max bid/, "max bid")}`,
    ]);
  if (s.cashOnCash) {
    rows.push(["Best cash-on-cash", percent(s.cashOnCash.best), where(s.cashOnCash.best)]);
    rows.push(["Worst cash-on-cash", percent(s.cashOnCash.worst), where(s.cashOnCash.worst)]);
  }
  if (s.held > 0)
    rows.push(["Held back", rowCount(s.held), `unusual values: check them, or tick "${SEND_UNUSUAL_LABEL}"`]);
  if (s.failed.length > 0)
    rows.push([
      "Failed",
      rowCount(s.failed.reduce((n, f) => n + f.rows.length, 0)),
      s.failed.map((f) => `${f.reason} (${rowList(f.rows)})`).join("; "),
    ]);
  figures(list, rows);
  return h(
    "section",
    { class: "run-summary", "aria-labelledby": "screen-summary-title" },
    h("h3", { class: "section-title", id: "screen-summary-title" }, "The deals"),
    list,
  );
}

const rowCount = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "row" : "rows"}`;
const percent = (d: DealFigure) => `${(d.value * 100).toFixed(1)}%`;
const where = (d: DealFigure) => `${d.property}, row ${d.sheetRow + 1}`;

function rowList(rows: readonly number[]): string {
  const shown = rows.slice(0, 6).map((r) => r + 1);
  return `${rows.length === 1 ? "row" : "rows"} ${shown.join(", ")}${rows.length > 6 ? ` and ${rows.length - 6} more` : ""}`;
}
