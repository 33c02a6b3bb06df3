import { RelayCallError, RelayClient } from "../../src/client";
import { Strategy } from "../../src/contract";
import { PaneError, describeError } from "../errors";
import { RefreshScope } from "../excel/scope";
import { EnhanceRetry, retryEnhancements } from "../enhance-retry";
import { DestinationCheck, Placement } from "../excel/destination";
import { placeResults } from "../overwrite";
import {
  RefreshPlan,
  coveredCells,
  plannedBlocks,
  planRefresh,
  recalculateFormulas,
  refreshOffer,
  refreshTables,
} from "../refresh";
import { budgetLeftFigure, usd } from "../spend";
import { PaneContext, relayClient } from "./context";
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

/** The tab's state: the plan shown (what the Refresh button runs) and the run under way. */
interface RefreshTab {
  ctx: PaneContext;
  el: Elements;
  progress: ReturnType<typeof progressBinding>;
  plan: RefreshPlan | undefined;
  running: AbortController | undefined;
}

/**
 * The Refresh tab: choose a scope, see what is in it and what refreshing it costs, confirm, watch it
 * run. Nothing is sent before the confirming click.
 */
export function mountRefresh(ctx: PaneContext): void {
  const el = elements();
  const tab: RefreshTab = {
    ctx,
    el,
    progress: progressBinding(byId("refresh-bar"), byId("refresh-progress-text")),
    plan: undefined,
    running: undefined,
  };
  for (const input of [el.scope, el.strategy]) input.addEventListener("change", () => forget(tab));
  el.olderThan.addEventListener("input", () => forget(tab));
  el.find.addEventListener("click", () => void findPlan(tab));
  el.run.addEventListener("click", () => void runPlan(tab));
  el.retryRun.addEventListener("click", () => void retryFailed(tab));
  el.cancel.addEventListener("click", () =>
    tab.running?.abort(new RelayCallError("STR_CANCELLED", "Cancelled in the task pane.")),
  );
}

function forget(tab: RefreshTab): void {
  tab.plan = undefined;
  show(tab.el.planBox, false);
  show(tab.el.retryBox, false);
}

async function findPlan(tab: RefreshTab): Promise<void> {
  const { ctx, el } = tab;
  forget(tab);
  say(el.message, undefined);
  enable(el.find, false);
  try {
    const scope = (inputValue(el.scope) || "selection") as RefreshScope;
    const client = await relayClient(ctx);
    const days = olderThanDays(el.olderThan.value);
    const plan = await planRefresh({ client, run: ctx.run }, scope, {
      strategy: el.strategy.value as Strategy,
      ...(days === undefined ? {} : { olderThanDays: days }),
    });
    tab.plan = plan;
    ctx.setMode(plan.tables.sandbox ? "sandbox" : "live");
    renderPlan(el.planList, el.planNote, plan);
    renderOverwrite(el, plan.destinations);
    renderRetry(el, plan.enhanceRetry);
    const total = plan.formulaCostUSD + plan.tables.estimatedCostUSD;
    // With "older than", formulas whose answers are all newer have nothing to buy.
    const noFormulas = plan.targets.formulas.length === 0 || (plan.olderThan && plan.formulas.calls === 0);
    const nothing = noFormulas === true && plan.jobs.length === 0;
    const offered = refreshOffer(plan).offered;
    el.run.textContent = `Refresh — up to ${usd(total)}`;
    // Nothing to refresh, or more than the budget: no button (a disabled one reads as a broken promise).
    show(el.run, offered && !nothing);
    show(el.planBox, true);
    if (!nothing && offered) el.run.focus();
    else if (plan.olderThan)
      say(el.message, "info", `Nothing in ${scopeText(scope, plan)} is older than ${plan.olderThan.days} days.`);
    else say(el.message, "info", `No STR formulas and no screened tables in ${scopeText(scope, plan)}.`);
  } catch (error) {
    say(el.message, "error", describeError(error));
  } finally {
    enable(el.find, true);
  }
}

async function runPlan(tab: RefreshTab): Promise<void> {
  const { ctx, el } = tab;
  const current = tab.plan;
  if (!current || tab.running || !refreshOffer(current).offered) return;
  const controller = new AbortController();
  tab.running = controller;
  forget(tab);
  enable(el.find, false);
  say(el.message, undefined);
  const parts: string[] = [];
  try {
    const client = await relayClient(ctx);
    // Read again before anything is sent: cells typed since the plan are asked about, not overwritten.
    const placed = await placeResults(ctx.run, plannedBlocks(current), placement());
    if (!placed.go) {
      tab.plan = { ...current, destinations: placed.now };
      renderOverwrite(el, placed.now);
      show(el.planBox, true);
      say(
        el.message,
        "warning",
        "Cells of yours appeared where the results would go, so nothing was sent: choose where they go, then refresh again.",
      );
      return;
    }
    if (current.targets.formulas.length > 0) parts.push(await refreshFormulas(tab, current, controller.signal));
    if (current.jobs.length > 0 && !controller.signal.aborted) {
      await rewriteTables(tab, { ...current, jobs: placed.jobs }, client, controller.signal, parts);
    } else {
      const aborted = controller.signal.aborted;
      say(el.message, aborted ? "warning" : "success", aborted ? "Cancelled." : parts.join(" "));
    }
  } catch (error) {
    say(el.message, "error", [...parts, describeError(error, "may-bill")].join(" "));
  } finally {
    tab.running = undefined;
    show(el.progressBox, false);
    enable(el.find, true);
    ctx.spendChanged();
  }
}

/** Recalculates the plan's formulas past the cache (only what aged, with "older than"); says what was sent. */
async function refreshFormulas(tab: RefreshTab, plan: RefreshPlan, signal: AbortSignal): Promise<string> {
  say(tab.el.message, "info", `Recalculating ${plan.targets.formulas.length} STR formulas past the cache…`);
  const { calls, notMade } = await recalculateFormulas(tab.ctx.run, tab.ctx.gate, plan.targets, plan.formulaRequests, {
    signal,
    ...(plan.olderThan ? { freshSince: plan.olderThan.freshSince } : {}),
  });
  return formulaRefreshText(calls, notMade, plan.formulas.unread);
}

/** What the formulas' refresh did: the priced calls sent again, those whose cells never called, those not priced. */
function formulaRefreshText(calls: number, notMade: number, unread: number): string {
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

/** Runs the tables again into their blocks, as one undo step where Excel can group it, with progress. */
async function rewriteTables(
  tab: RefreshTab,
  plan: RefreshPlan,
  client: RelayClient,
  signal: AbortSignal,
  parts: readonly string[],
): Promise<void> {
  const { ctx, el, progress } = tab;
  progress.reset(plan.jobs.reduce((n, j) => n + j.rows.filter((r) => r.kind !== "blank").length, 0));
  show(el.progressBox, true);
  el.cancel.focus();
  const group = ctx.undoGroup();
  const result = await refreshTables({ client, run: group.run }, plan.jobs, {
    signal,
    sandbox: plan.tables.sandbox,
    onProgress: progress.update,
  }).finally(() => group.close());
  progress.update(result.progress);
  const outcome = outcomeMessage(result, "refresh");
  say(
    el.message,
    outcome.intent,
    [...parts, outcome.text].join(" "),
    result.writeError !== undefined ? ` ${describeError(result.writeError)}` : "",
  );
}

async function retryFailed(tab: RefreshTab): Promise<void> {
  const retry = tab.plan?.enhanceRetry;
  if (!retry || retry.cells.length === 0 || tab.running) return;
  const n = retry.cells.length;
  show(tab.el.retryBox, false);
  try {
    await retryEnhancements(tab.ctx.run, retry.cells);
    say(
      tab.el.message,
      "info",
      `${n} STR.ENHANCE ${n === 1 ? "cell asks" : "cells ask"} again, up to ${usd(retry.costUSD)}: only AI steps that complete are billed. Find what to refresh again to see any still failing, with the next try's price.`,
    );
  } catch (error) {
    say(tab.el.message, "error", describeError(error, "may-bill"));
  } finally {
    tab.ctx.spendChanged();
  }
}

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

function renderPlan(list: HTMLElement, note: HTMLElement, plan: RefreshPlan): void {
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
  const offer = refreshOffer(plan);
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

/** The "older than" box: blank is everything; anything else must be a whole number of days, 0 or more. */
function olderThanDays(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const days = Number(text);
  if (!Number.isInteger(days) || days < 0)
    throw new PaneError(`Older than must be a whole number of days, 0 or more (or blank for all); got "${text}".`);
  return days;
}
