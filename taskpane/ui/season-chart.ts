import { Seasonality, SeasonMonth } from "../seasonality";
import { wholeUSD } from "../spend";
import { h } from "./dom";

const SVG = "http://www.w3.org/2000/svg";

/**
 * Revenue by month: twelve bars (an image to sight, hidden from screen readers) and the same months
 * as a table (visually hidden, read by screen readers: month, revenue, nightly rate, occupancy), as
 * WAI's complex-images tutorial has it. A simulated analysis says so in the chart's caption.
 */
export function seasonChart(season: Seasonality, options: { id: string; sandbox: boolean }): HTMLElement {
  if (season.kind === "none") return h("p", { class: "muted", id: options.id }, season.message);
  const caption = [
    "Revenue by month",
    season.high && season.low ? `: high ${season.high.label}, low ${season.low.label}` : "",
    options.sandbox ? " · SANDBOX: simulated data" : "",
  ].join("");
  return h(
    "figure",
    { class: "season", id: options.id },
    bars(season.months),
    h("figcaption", { class: "small muted" }, caption),
    h(
      "table",
      { class: "visually-hidden" },
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h("tr", {}, ...["Month", "Revenue", "Nightly rate", "Occupancy"].map((c) => h("th", { scope: "col" }, c))),
      ),
      h("tbody", {}, ...season.months.map(row)),
    ),
  );
}

function row(m: SeasonMonth): HTMLElement {
  const money = (v: number | undefined) => (v === undefined ? "—" : wholeUSD(v));
  return h(
    "tr",
    {},
    h("th", { scope: "row" }, m.label),
    h("td", {}, money(m.revenueUSD)),
    h("td", {}, money(m.ratePerNightUSD)),
    h("td", {}, m.occupancy === undefined ? "—" : `${(m.occupancy * 100).toFixed(0)}%`),
  );
}

function bars(months: readonly SeasonMonth[]): Element {
  const width = 288;
  const height = 120;
  const labelSpace = 16;
  const step = width / months.length;
  const max = Math.max(...months.map((m) => m.revenueUSD ?? 0), 1);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("chart__svg");
  months.forEach((m, i) => {
    const barHeight = m.revenueUSD === undefined ? 0 : Math.max(2, (m.revenueUSD / max) * (height - labelSpace - 4));
    const rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("x", String(Math.round(i * step + 3)));
    rect.setAttribute("y", String(Math.round(height - labelSpace - barHeight)));
    rect.setAttribute("width", String(Math.round(step - 6)));
    rect.setAttribute("height", String(Math.round(barHeight)));
    rect.setAttribute("rx", "2");
    rect.setAttribute("class", "chart__bar");
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", String(Math.round(i * step + step / 2)));
    label.setAttribute("y", String(height - 3));
    label.setAttribute("text-anchor", "middle");
    label.setAttribute("class", "chart__label chart__label--month");
    label.textContent = m.label.slice(0, 1);
    svg.append(rect, label);
  });
  return svg;
}
