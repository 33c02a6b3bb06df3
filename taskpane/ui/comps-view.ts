import { Comparable } from "../../src/contract";
import { ComparablesView, loadComparables } from "../comps";
import { describeError } from "../pane-error";
import { insertComparablesSheet, PercentilePoint } from "../excel/comparables-sheet";
import { analysisAtSelection } from "../excel/selected";
import { wholeUSD } from "../spend";
import { PaneContext, relayClient } from "./context";
import { byId, enable, h, say, show } from "./dom";
import { seasonChart } from "./season-chart";

/**
 * The Comparables tab: the listings behind the analysis in the selected cell, with a photo, revenue,
 * nightly rate, occupancy and distance each, a chart of the analysis's revenue percentiles, and
 * "Insert as table" to put them on a sheet of their own. Read from the relay's store: free.
 */
export function mountComps(ctx: PaneContext): void {
  const el = {
    show: byId("comps-show"),
    view: byId("comps-view"),
    title: byId("comps-title"),
    chart: byId("comps-chart"),
    season: byId("comps-season"),
    insert: byId("comps-insert"),
    list: byId("comps-list"),
    message: byId("comps-message"),
    /** Beside the button, so the outcome is seen where the click was (at 320 px the list runs past the fold). */
    inserted: byId("comps-insert-message"),
  };
  let current: ComparablesView | undefined;

  el.show.addEventListener("click", async () => {
    say(el.message, undefined);
    say(el.inserted, undefined);
    enable(el.show, false);
    try {
      const selected = await analysisAtSelection(ctx.run);
      const client = await relayClient(ctx);
      current = await loadComparables(client, selected.id);
      ctx.setMode(current.sandbox ? "sandbox" : "live");
      el.title.textContent = `${current.address ?? "Analysis"} · ${current.comparables.length} comparables · analysis ${current.id} (from ${selected.where})${current.sandbox ? " · simulated data" : ""}`;
      el.chart.replaceChildren(percentileChart(current.percentiles));
      el.season.replaceChildren(seasonChart(current.season, { id: "comps-season-chart", sandbox: current.sandbox }));
      el.list.replaceChildren(...current.comparables.map(comparableItem));
      enable(el.insert, current.comparables.length > 0);
      show(el.view, true);
      if (current.warnings.length > 0) say(el.message, "warning", `⚠ ${current.warnings.join(" | ")}`);
    } catch (error) {
      show(el.view, false);
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.show, true);
    }
  });

  el.insert.addEventListener("click", async () => {
    if (!current) return;
    enable(el.insert, false);
    say(el.inserted, undefined);
    try {
      const inserted = await insertComparablesSheet(ctx.run, current.analysis, current.warnings);
      say(
        el.inserted,
        "success",
        `Inserted ${inserted.rows} comparables as a table on sheet ${inserted.sheetName}, with a chart of the revenue percentiles.`,
      );
    } catch (error) {
      say(el.inserted, "error", describeError(error));
    } finally {
      enable(el.insert, true);
      el.inserted.scrollIntoView?.({ block: "nearest" });
    }
  });
}

const SVG = "http://www.w3.org/2000/svg";

/** Horizontal bars, one per percentile, labelled with their amounts; the values are also the image's text alternative. */
export function percentileChart(points: readonly PercentilePoint[]): Element {
  if (points.length === 0) return h("p", { class: "muted" }, "This analysis has no revenue percentiles.");
  const max = Math.max(...points.map((p) => p.value), 1);
  const rowHeight = 26;
  const labelWidth = 56;
  const width = 280;
  const barSpace = width - labelWidth - 70;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${points.length * rowHeight}`);
  svg.setAttribute("role", "img");
  svg.setAttribute(
    "aria-label",
    `Annual revenue: ${points.map((p) => `${p.label} percentile ${wholeUSD(p.value)}`.replace("Median percentile", "median")).join(", ")}`,
  );
  svg.classList.add("chart__svg");
  points.forEach((p, i) => {
    const y = i * rowHeight;
    const bar = Math.max(2, Math.round((p.value / max) * barSpace));
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", "0");
    label.setAttribute("y", String(y + 17));
    label.setAttribute("class", "chart__label");
    label.textContent = p.label;
    const rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("x", String(labelWidth));
    rect.setAttribute("y", String(y + 5));
    rect.setAttribute("width", String(bar));
    rect.setAttribute("height", String(rowHeight - 10));
    rect.setAttribute("rx", "2");
    rect.setAttribute("class", p.label === "Median" ? "chart__bar chart__bar--median" : "chart__bar");
    const value = document.createElementNS(SVG, "text");
    value.setAttribute("x", String(labelWidth + bar + 6));
    value.setAttribute("y", String(y + 17));
    value.setAttribute("class", "chart__value");
    value.textContent = wholeUSD(p.value);
    svg.append(label, rect, value);
  });
  return svg;
}

function comparableItem(c: Comparable): HTMLElement {
  const photo = c.photo_urls?.find((u) => /^https?:\/\//i.test(u));
  const link = typeof c.listingUrl === "string" && /^https?:\/\//i.test(c.listingUrl) ? c.listingUrl : undefined;
  const name = c.name ?? c.platformId ?? "Listing";
  const facts = [
    c.annualRevenueUSD !== undefined ? `${wholeUSD(c.annualRevenueUSD)}/yr` : undefined,
    c.averageDailyRateUSD !== undefined ? `${wholeUSD(c.averageDailyRateUSD)}/night` : undefined,
    c.occupancyRatePercentage !== undefined ? `${c.occupancyRatePercentage.toFixed(0)}% occupied` : undefined,
    c.distanceMiles !== undefined ? `${c.distanceMiles.toFixed(1)} mi` : undefined,
    c.bedrooms !== undefined ? `${c.bedrooms} bd` : undefined,
  ].filter((x): x is string => x !== undefined);
  return h(
    "li",
    { class: "comp" },
    photo
      ? h("img", { class: "comp__photo", src: photo, alt: "", loading: "lazy", width: "72", height: "54" })
      : h("span", { class: "comp__photo comp__photo--none", "aria-hidden": "true" }),
    h(
      "div",
      { class: "comp__text" },
      link
        ? h("a", { class: "comp__name", href: link, target: "_blank", rel: "noopener noreferrer" }, name)
        : h("span", { class: "comp__name" }, name),
      h("span", { class: "comp__facts" }, facts.join(" · ")),
    ),
  );
}
