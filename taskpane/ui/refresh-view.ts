import { Strategy } from "../../src/contract";
import { describeError } from "../pane-error";
import { EnhanceRetry } from "../enhance-retry";
import { DestinationCheck, Placement } from "../excel/destination";
import { RefreshScope } from "../excel/scope";
import { RefreshPlan, coveredCells } from "../refresh";
import { FormulasRefreshed, RefreshOutcome, RefreshTab } from "../refresh-tab";
import { RunOffer } from "../run-offer";
import { budgetLeftFigure, usd } from "../spend";
import { PaneContext, tabDeps } from "./context";
import { byId, enable, figures, h, inputValue, messageBar, say, show } from "./dom";
import { outcomeMessage, progressBinding } from "./progress-view";

type Elements = ReturnType<typeof elements>;

function elements() {
  return {
    scope: byId("refresh-scope"),
    strategy: byId<HTMLSelectElement>("refresh-strategy"),
    olderThan: byId<HTMLInputElement>("refresh-older-than"),
    find: byId("refresh-find"),
    planBox: byId("refresh-plan"),
    planList: byId("refresh-plan-list"),
    planNote: byId("refresh-plan-note"),
    overwrite: byId("refresh-overwrite"),
    overwriteText: byId("refresh-overwrite-text"),
    placeOver: byId("refresh-place-over"),
    run: byId("refresh-run"),
    retryBox: byId("refresh-retry"),
    retryText: byId("refresh-retry-text"),
    retryRun: byId("refresh-retry-run"),
    progressBox: byId("refresh-progress"),
    cancel: byId("refresh-cancel"),
    message: byId("refresh-message"),
  };
}

/** What the tab's handlers share: its elements, the tab they forward to, and the progress bar. */
interface RefreshView {
  el: Elements;
  tab: RefreshTab;
  progress: ReturnType<typeof progressBinding>;
}

/**
 * The Refresh tab, drawn: choose a scope, see what is in it and what refreshing it costs, confirm,
 * watch it run. What each click does is refresh-tab.ts's; this file shows it and forwards the clicks.
 */
export function mountRefresh(ctx: PaneContext): void {
  const el = elements();
  const view: RefreshView = {
    el,
    tab: new RefreshTab(tabDeps(ctx)),
    progress: progressBinding(byId("refresh-bar"), byId("refresh-progress-text")),
  };
  for (const input of [el.scope, el.strategy]) input.addEventListener("change", () => forget(view));
  el.olderThan.addEventListener("input", () => forget(view));
  el.find.addEventListener("click", () => void findPlan(view));
  el.run.addEventListener("click", () => void runPlan(view));
  el.retryRun.addEventListener("click", () => void retryFailed(view));
  el.cancel.addEventListener("click", () => view.tab.cancel());
}

function forget({ el, tab }: RefreshView): void {
  tab.forget();
  show(el.planBox, false);
  show(el.retryBox, false);
}

async function findPlan(view: RefreshView): Promise<void> {
  const { el, tab } = view;
  forget(view);
  say(el.message, undefined);
  enable(el.find, false);
  try {
    const scope = (inputValue(el.scope) || "selection") as RefreshScope;
    const found = await tab.find(scope, { strategy: el.strategy.value as Strategy, olderThan: el.olderThan.value });
    const { plan, offer, nothing } = found;
    renderPlan(el.planList, el.planNote, plan, offer);
    renderOverwrite(el, plan.destinations);
    renderRetry(el, plan.enhanceRetry);
    el.run.textContent = `Refresh — up to ${usd(found.totalUSD)}`;
    // Nothing to refresh, or more than the budget: no button (a disabled one reads as a broken promise).
    show(el.run, offer.offered && !nothing);
    show(el.planBox, true);
    if (!nothing && offer.offered) el.run.focus();
    else if (plan.olderThan)
      say(el.message, "info", `Nothing in ${scopeText(scope, plan)} is older than ${plan.olderThan.days} days.`);
    else say(el.message, "info", `No STR formulas and no screened tables in ${scopeText(scope, plan)}.`);
  } catch (error) {
    say(el.message, "error", describeError(error));
  } finally {
    enable(el.find, true);
  }
}

async function runPlan(view: RefreshView): Promise<void> {
  const { el, tab, progress } = view;
  if (!tab.runnable()) return;
  show(el.planBox, false);
  show(el.retryBox, false);
  enable(el.find, false);
  say(el.message, undefined);
  const outcome = await tab.refresh(placement(), {
    formulas: (count) => say(el.message, "info", `Recalculating ${count} STR formulas past the cache…`),
    tables: (total) => {
      progress.reset(total);
      show(el.progressBox, true);
      el.cancel.focus();
    },
    progress: progress.update,
  });
  show(el.progressBox, false);
  enable(el.find, true);
  if (outcome) renderOutcome(view, outcome);
}

/** How the refresh ended: what the formulas and the tables did; or the question again. */
function renderOutcome({ el }: RefreshView, outcome: RefreshOutcome): void {
  if (outcome.kind === "ask-again") {
    renderOverwrite(el, outcome.destinations);
    show(el.planBox, true);
    say(
      el.message,
      "warning",
      "Cells of yours appeared where the results would go, so nothing was sent: choose where they go, then refresh again.",
    );
    return;
  }
  const parts = outcome.formulas ? [formulaRefreshText(outcome.formulas)] : [];
  if (outcome.kind === "failed")
    return say(el.message, "error", [...parts, describeError(outcome.error, "may-bill")].join(" "));
  const tables = outcome.tables;
  if (!tables)
    return outcome.cancelled ? say(el.message, "warning", "Cancelled.") : say(el.message, "success", parts.join(" "));
  const said = outcomeMessage(tables, "refresh");
  say(
    el.message,
    said.intent,
    [...parts, said.text].join(" "),
    tables.writeError !== undefined ? ` ${describeError(tables.writeError)}` : "",
  );
}

/** What the formulas' refresh did: the priced calls sent again, those whose cells never called, those not priced. */
function formulaRefreshText({ calls, notMade, unread }: FormulasRefreshed): string {
  const parts = [
    `${calls} STR formula ${calls === 1 ? "call was" : "calls were"} sent again; the cells update as the answers arrive.`,
  ];
  if (notMade > 0)
    parts.push(`${notMade} priced ${notMade === 1 ? "call was" : "calls were"} not made by Excel, so not bought.`);
  if (unread > 0)
    parts.push(
      `${unread} ${unread === 1 ? "call" : "calls"} with arguments the pane cannot read ${unread === 1 ? "was" : "were"} not refreshed.`,
    );
  return parts.join(" ");
}

async function retryFailed({ el, tab }: RefreshView): Promise<void> {
  if (!tab.retryable()) return;
  show(el.retryBox, false);
  try {
    const retry = await tab.retry();
    const n = retry?.cells.length ?? 0;
    say(
      el.message,
      "info",
      `${n} STR.ENHANCE ${n === 1 ? "cell asks" : "cells ask"} again, up to ${usd(retry?.costUSD ?? 0)}: only AI steps that complete are billed. Find what to refresh again to see any still failing, with the next try's price.`,
    );
  } catch (error) {
    say(el.message, "error", describeError(error, "may-bill"));
  }
}

/** The user's answer to the question: further right unless they chose to overwrite. */
function placement(): Placement {
  return document.querySelector<HTMLInputElement>('input[name="refresh-placement"]:checked')?.value === "overwrite"
    ? "overwrite"
    : "right";
}

function scopeText(scope: RefreshScope, plan: RefreshPlan): string {
  if (scope === "selection") return "the selected cells";
  if (scope === "sheet") return `sheet ${plan.targets.sheets[0] ?? ""}`;
  return `the workbook's ${plan.targets.sheets.length} sheets`;
}

function renderPlan(list: HTMLElement, note: HTMLElement, plan: RefreshPlan, offer: RunOffer): void {
  const { targets, tables } = plan;
  const rows = plan.jobs.reduce((n, j) => n + j.items.length, 0);
  const sheets = [...new Set(targets.formulas.map((f) => f.sheetName))];
  figures(list, [
    [
      "STR formulas",
      String(targets.formulas.length),
      targets.formulas.length > 0 ? `${plan.formulaCalls} distinct calls on ${sheets.join(", ")}` : undefined,
    ],
    ["Formulas, cost", usd(plan.formulaCostUSD), formulaCostNote(plan)],
    [
      "Screened tables",
      String(plan.jobs.length),
      plan.jobs.length > 0
        ? `${rows.toLocaleString("en-US")} rows: ${targets.tables.map((t) => t.address).join(", ")}`
        : undefined,
    ],
    [
      "Tables, cost",
      usd(tables.estimatedCostUSD),
      `at most; ${tables.toCreate} to create${tables.sandbox ? "; sandbox: simulated money" : ""}`,
    ],
    budgetLeftFigure(tables.budgetRemainingUSD),
    ...(plan.olderThan
      ? [
          [
            "Older than",
            `${plan.olderThan.days} days`,
            "only what was fetched before then is bought again; newer answers are kept, free",
          ] as const,
        ]
      : []),
  ]);
  const notes: HTMLElement[] = [];
  for (const s of plan.skipped) notes.push(h("p", { class: "inline-error" }, `${s.address} is left out: ${s.reason}.`));
  if (!offer.offered) notes.push(messageBar("warning", h("strong", {}, offer.reason), " ", offer.advice));
  note.replaceChildren(...notes);
}

/** What the formulas' price rests on: the relay's dry run of the requests they send, and what could not be read. */
function formulaCostNote(plan: RefreshPlan): string | undefined {
  if (plan.formulaRequests.length === 0) return undefined;
  const { unread, invalid, dryRun } = plan.formulas;
  const parts = [
    `the relay's price of the ${dryRun.toCreate} ${dryRun.toCreate === 1 ? "request" : "requests"} they send`,
  ];
  if (dryRun.duplicates > 0) parts.push(`${dryRun.duplicates} identical, sent once`);
  if (unread > 0) parts.push(`${unread} with arguments the pane cannot read: not priced, not refreshed`);
  if (invalid > 0) parts.push(`${invalid} with bad arguments (#VALUE!), not sent`);
  return parts.join("; ");
}

/** The question, when a table's rewrite would cover cells of the user's: where the first is, and the two ways on. */
function renderOverwrite(
  el: { overwrite: HTMLElement; overwriteText: HTMLElement; placeOver: HTMLElement },
  checks: readonly DestinationCheck[],
): void {
  const covered = coveredCells(checks);
  show(el.overwrite, covered > 0);
  const first = checks.find((c) => c.first)?.first;
  if (covered === 0 || !first) return;
  const cells = covered === 1 ? "1 cell" : `${covered.toLocaleString("en-US")} cells`;
  el.overwriteText.textContent = `The refreshed results would cover ${cells} of yours (first ${first.address}: ${JSON.stringify(first.content)}).`;
  el.placeOver.textContent = covered === 1 ? "Overwrite that cell" : `Overwrite those ${cells}`;
  const right = el.overwrite.querySelector<HTMLInputElement>('input[value="right"]');
  if (right) right.checked = true;
}

/** Enhancements whose AI steps all failed are not kept: offered again, with what the try costs at most. */
function renderRetry(
  el: { retryBox: HTMLElement; retryText: HTMLElement; retryRun: HTMLElement },
  retry: EnhanceRetry,
): void {
  const n = retry.cells.length;
  show(el.retryBox, n > 0);
  if (n === 0) return;
  el.retryText.textContent = `${n} STR.ENHANCE ${n === 1 ? "cell has" : "cells have"} no kept answer: every AI step failed (not billed), or it never ran.`;
  el.retryRun.textContent = `Retry ${n === 1 ? "it" : `those ${n}`} — up to ${usd(retry.costUSD)}`;
}
