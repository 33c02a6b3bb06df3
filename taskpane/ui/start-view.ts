import { Unit } from "../../src/contract";
import { CellInput } from "../../src/inputs";
import { describeError } from "../pane-error";
import { workbookNumberStyle } from "../excel/number-style";
import { insertSampleTable } from "../excel/sample-table";
import { runOffer } from "../run-offer";
import {
  PROPERTY_FORM,
  PropertyPrice,
  PropertyResult,
  analyzeProperty,
  priceProperty,
  propertyRequest,
} from "../single-analysis";
import { budgetLeftFigure, usd, wholeUSD } from "../spend";
import { percentileChart } from "./comps-view";
import { seasonChart } from "./season-chart";
import { seasonalityOf } from "../seasonality";
import { revenuePercentiles } from "../excel/comparables-sheet";
import { PaneContext, relayClient } from "./context";
import { byId, enable, figures, h, inputValue, messageBar, say, show } from "./dom";
import { describeIssues } from "../../src/contract";

/**
 * The Start tab, where an investor begins: one property from its address (priced first, bought
 * on confirmation, its decision figures, revenue percentiles and nearest comparables shown), and
 * a sample table to try screening on.
 */
export function mountStart(ctx: PaneContext): void {
  mountSample(ctx);
  const el = {
    form: byId<HTMLFormElement>("start-form"),
    inputs: PROPERTY_FORM.map(([field]) => byId(`start-${field}`)),
    price: byId("start-price"),
    quote: byId("start-quote"),
    quoteList: byId("start-quote-list"),
    quoteNote: byId("start-quote-note"),
    buy: byId("start-buy"),
    result: byId("start-result"),
    message: byId("start-message"),
  };
  let quoted: Record<string, unknown> | undefined;
  // Anything typed after the price is shown makes it stale.
  el.inputs.forEach((input) =>
    input.addEventListener("input", () => {
      quoted = undefined;
      show(el.quote, false);
    }),
  );

  const price = async () => {
    say(el.message, undefined);
    show(el.quote, false);
    const values: CellInput[] = el.inputs.map((input) => inputValue(input));
    const request = propertyRequest(values, await workbookNumberStyle(ctx.run).catch(() => "unknown" as const));
    if (!request.ok) return say(el.message, "error", `Check the property: ${describeIssues(request.issues)}.`);
    enable(el.price, false);
    try {
      const quote = await priceProperty(await relayClient(ctx), request.params);
      ctx.setMode(quote.sandbox ? "sandbox" : "live");
      quoted = showQuote(el, quote) ? request.params : undefined;
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.price, true);
    }
  };
  // The button submits the form too (Enter in a field): a Fluent button is not a native submit button.
  const submit = (event: Event) => {
    event.preventDefault();
    void price();
  };
  el.form.addEventListener("submit", submit);
  el.price.addEventListener("click", submit);

  el.buy.addEventListener("click", async () => {
    if (!quoted) return;
    const params = quoted;
    enable(el.buy, false);
    say(el.message, undefined);
    try {
      const result = await analyzeProperty(await relayClient(ctx), params);
      show(el.quote, false);
      el.result.replaceChildren(...renderResult(result));
      show(el.result, true);
    } catch (error) {
      say(el.message, "error", describeError(error, "may-bill"));
    } finally {
      enable(el.buy, true);
      ctx.spendChanged();
    }
  });
}

/** The price and the budget left; the Analyze button only when the budget covers it. Says whether it is offered. */
function showQuote(
  el: { quoteList: HTMLElement; quoteNote: HTMLElement; buy: HTMLElement; quote: HTMLElement; price: HTMLElement },
  quote: PropertyPrice,
): boolean {
  figures(el.quoteList, [
    [
      "Price",
      quote.cached ? "Free" : usd(quote.estimatedCostUSD),
      quote.cached ? "analysed before: from the cache" : "one analysis, billed once",
    ],
    budgetLeftFigure(quote.budgetRemainingUSD),
  ]);
  const offer = runOffer(quote);
  el.quoteNote.replaceChildren(
    ...(offer.offered ? [] : [messageBar("warning", h("strong", {}, offer.reason), " ", offer.advice)]),
  );
  el.buy.textContent = quote.cached ? "Show the analysis (free)" : `Analyze — ${usd(quote.estimatedCostUSD)}`;
  show(el.buy, offer.offered);
  show(el.quote, true);
  (offer.offered ? el.buy : el.price).focus();
  return offer.offered;
}

/** "Insert a sample table": six listings on a sheet of their own, selected for the Screen tab. */
function mountSample(ctx: PaneContext): void {
  const el = { sample: byId("start-sample"), sampleMessage: byId("start-sample-message") };
  el.sample.addEventListener("click", async () => {
    enable(el.sample, false);
    say(el.sampleMessage, undefined);
    try {
      const { address } = await insertSampleTable(ctx.run);
      say(
        el.sampleMessage,
        "success",
        `A sample table is in ${address}, selected. On the Screen tab, Read selected table, then Estimate cost: nothing is sent before you confirm.`,
      );
    } catch (error) {
      say(el.sampleMessage, "error", describeError(error));
    } finally {
      enable(el.sample, true);
    }
  });
}

function renderResult(r: PropertyResult): HTMLElement[] {
  const list = h("dl", { class: "figures", id: "start-figures" });
  figures(
    list,
    r.figures.map(({ field, value }) => [field.label, shown(value, field.unit)] as const),
  );
  const link = typeof r.analysis.url === "string" && /^https?:\/\//i.test(r.analysis.url) ? r.analysis.url : undefined;
  const comps = (r.analysis.comparables ?? []).slice(0, 5);
  return [
    h(
      "p",
      { class: "summary", id: "start-title" },
      `${typeof r.analysis.fullAddress === "string" ? r.analysis.fullAddress : "The property"}${r.answer.relay.sandbox ? " · simulated data" : ""}${r.answer.relay.cached ? " · from the cache, free" : ` · ${usd(r.answer.relay.costUSD)}`}`,
    ),
    list,
    ...(link
      ? [h("p", {}, h("a", { href: link, target: "_blank", rel: "noopener noreferrer" }, "Open the full report"))]
      : []),
    h("h3", { class: "section-title" }, "Annual revenue by percentile"),
    h("div", { class: "chart" }, percentileChart(revenuePercentiles(r.analysis))),
    h("h3", { class: "section-title" }, "Seasonality"),
    seasonChart(seasonalityOf(r.analysis), { id: "start-season", sandbox: r.answer.relay.sandbox }),
    ...(comps.length > 0
      ? [
          h("h3", { class: "section-title", id: "start-comps-title" }, "Nearest comparables"),
          h(
            "ul",
            { class: "comps", "aria-labelledby": "start-comps-title" },
            ...comps.map((c) =>
              h(
                "li",
                { class: "comp" },
                h(
                  "div",
                  { class: "comp__text" },
                  h("span", { class: "comp__name" }, String(c.name ?? "Listing")),
                  h(
                    "span",
                    { class: "comp__facts" },
                    [
                      typeof c.annualRevenueUSD === "number" ? `${wholeUSD(c.annualRevenueUSD)}/yr` : "",
                      typeof c.averageDailyRateUSD === "number" ? `${wholeUSD(c.averageDailyRateUSD)}/night` : "",
                      typeof c.distanceMiles === "number" ? `${c.distanceMiles.toFixed(1)} mi` : "",
                    ]
                      .filter(Boolean)
                      .join(" · "),
                  ),
                ),
              ),
            ),
          ),
        ]
      : []),
    ...(r.warnings.length > 0 ? [messageBar("warning", r.warnings.join(" | "))] : []),
  ];
}

/** A figure as the card's cell would show it (percents are fractions there). */
function shown(value: number | string, unit: Unit): string {
  if (typeof value === "string") return value;
  if (unit === "usd") return wholeUSD(value);
  if (unit === "percent" || unit === "fraction") return `${(value * 100).toFixed(1)}%`;
  if (unit === "ratio") return value.toFixed(2);
  return value.toLocaleString("en-US");
}
