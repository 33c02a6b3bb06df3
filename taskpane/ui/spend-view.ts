import { describeError } from "../pane-error";
import { CallerLine, SpendView, clockTime, loadSpend, usd } from "../spend";
import { PaneContext, relayClient } from "./context";
import { byId, enable, figures, h, say } from "./dom";

/**
 * The Spend tab: today's spend against the budget this token runs against (its own, when it has
 * one) as a meter, the month, calls of unknown outcome, and, when the relay breaks it down, each
 * caller's (token's) share and own budget. The figures say when they were read; when the relay
 * cannot be reached, the last ones stay, marked as from then.
 */
export function mountSpend(ctx: PaneContext): { reload(): Promise<void> } {
  const el = { update: byId("spend-refresh"), view: byId("spend-view"), message: byId("spend-message") };
  let shown: SpendView | undefined;

  const reload = async () => {
    say(el.message, undefined);
    enable(el.update, false);
    try {
      shown = await loadSpend(await relayClient(ctx));
      ctx.setMode(shown.mode);
      el.view.replaceChildren(...renderSpend(shown, "current"));
    } catch (error) {
      if (shown) el.view.replaceChildren(...renderSpend(shown, "stale"));
      say(el.message, "error", describeError(error, "free"));
    } finally {
      enable(el.update, true);
    }
  };
  el.update.addEventListener("click", () => void reload());
  return { reload };
}

function renderSpend(v: SpendView, freshness: "current" | "stale"): HTMLElement[] {
  const m = v.meter;
  const percent = Math.round(m.share * 100);
  const level = m.share >= 0.9 ? "meter--high" : m.share >= 0.6 ? "meter--mid" : "";
  const whose = m.whose === "yours" ? `your ${usd(m.budgetUSD)} daily budget` : `today's ${usd(m.budgetUSD)} budget`;
  const today = h("dl", { class: "figures" });
  figures(today, [
    ["Billed", usd(v.today.costUSD), `${v.today.reports} reports, ${v.today.aiFunctions} AI steps`],
    [
      "Unknown outcome",
      usd(v.today.unknownUSD),
      v.today.unknownUSD > 0 ? "sent, then no answer (timeout or a relay restart): may have been billed" : "none",
    ],
    ...(v.today.pendingUSD > 0 ? [["In flight", usd(v.today.pendingUSD), "at most"] as const] : []),
    ...(v.own ? [["Your budget", usd(v.own.budgetUSD), `${usd(v.own.remainingUSD)} left today`] as const] : []),
    [v.own ? "Relay's budget" : "Budget", usd(v.budgetUSD), `${usd(v.remainingUSD)} left today, for every token`],
  ]);
  const month = h("dl", { class: "figures" });
  figures(month, [
    ["Billed", usd(v.month.costUSD), `${v.month.reports} reports, ${v.month.aiFunctions} AI steps`],
    ["Unknown outcome", usd(v.month.unknownUSD)],
    [
      "Calls",
      String(v.month.calls),
      v.month.cacheHits !== undefined ? `${v.month.cacheHits} answered from the cache, free` : undefined,
    ],
  ]);
  const time = clockTime(v.asOf);
  return [
    h(
      "p",
      { class: `small ${freshness === "stale" ? "stale" : "muted"}`, id: "spend-as-of" },
      freshness === "stale"
        ? `These figures are from ${time}: the relay could not be reached since.`
        : `As of ${time}.`,
    ),
    h("h3", { class: "section-title", id: "spend-today-title" }, "Today"),
    h(
      "div",
      {
        class: `meter ${level}`,
        role: "meter",
        "aria-labelledby": "spend-today-title",
        "aria-valuemin": "0",
        "aria-valuemax": "100",
        "aria-valuenow": String(percent),
        "aria-valuetext": `${percent}% of ${whose} used`,
      },
      h("div", { class: "meter__fill", style: `width: ${percent}%` }),
    ),
    h(
      "p",
      { class: "small muted" },
      `${percent}% of ${whose} used (${usd(m.usedUSD)}: billed, unknown and in flight).${v.mode === "sandbox" ? " Sandbox: simulated money." : ""}`,
    ),
    today,
    h("h3", { class: "section-title" }, "This month"),
    month,
    ...(v.callers ? renderCallers(v.callers) : []),
    h(
      "p",
      { class: "small muted" },
      "Failed calls are never counted: the service bills none. Cached answers cost nothing.",
    ),
  ];
}

/** Each caller's spend as the relay's ledger books it: named by label or token id, never the token. */
function renderCallers(callers: CallerLine[]): HTMLElement[] {
  const list = h("dl", { class: "figures", id: "spend-callers" });
  figures(
    list,
    callers.map((c) => [
      c.you ? `${c.name} (you)` : c.name,
      `${usd(c.todayUSD)} today`,
      [
        `${usd(c.monthUSD)} this month`,
        c.budget && `own budget ${usd(c.budget.dailyUSD)}, ${usd(c.budget.remainingUSD)} left`,
      ]
        .filter(Boolean)
        .join(" · "),
    ]),
  );
  return [h("h3", { class: "section-title" }, "By caller"), list];
}
