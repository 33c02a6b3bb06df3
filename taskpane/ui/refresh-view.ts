import { RelayCallError } from "../../src/client";
import { Strategy } from "../../src/contract";
import { PaneError, describeError } from "../errors";
import { RefreshScope } from "../excel/scope";
import { EnhanceRetry, retryEnhancements } from "../enhance-retry";
import { DestinationCheck, Placement } from "../excel/destination";
import {
  RefreshPlan,
  checkTableDestinations,
  coveredCells,
  placeTables,
  planRefresh,
  recalculateFormulas,
  refreshTables,
} from "../refresh";
import { usd } from "../spend";
import { PaneContext, relayClient } from "./context";
import { byId, enable, figures, h, inputValue, say, show } from "./dom";
import { outcomeMessage, progressBinding } from "./progress-view";

/**
 * The Refresh tab: choose a scope, see what is in it and what refreshing it costs, confirm, watch it
 * run. Nothing is sent before the confirming click.
 */
export function mountRefresh(ctx: PaneContext): void {
  const el = {
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
  const progress = progressBinding(byId("refresh-bar"), byId("refresh-progress-text"));
  let plan: RefreshPlan | undefined;
  let running: AbortController | undefined;

  const forget = () => {
    plan = undefined;
    show(el.planBox, false);
    show(el.retryBox, false);
  };
  el.scope.addEventListener("change", forget);
  el.strategy.addEventListener("change", forget);
  el.olderThan.addEventListener("input", forget);

  el.find.addEventListener("click", async () => {
    forget();
    say(el.message, undefined);
    enable(el.find, false);
    try {
      const scope = (inputValue(el.scope) || "selection") as RefreshScope;
      const client = await relayClient(ctx);
      const days = olderThanDays(el.olderThan.value);
      plan = await planRefresh({ client, run: ctx.run }, scope, {
        strategy: el.strategy.value as Strategy,
        ...(days === undefined ? {} : { olderThanDays: days }),
      });
      ctx.setMode(plan.tables.sandbox ? "sandbox" : "live");
      renderPlan(el.planList, el.planNote, plan);
      renderOverwrite(el, plan.destinations);
      renderRetry(el, plan.enhanceRetry);
      const total = plan.formulaCostUSD + plan.tables.estimatedCostUSD;
      const nothing = plan.targets.formulas.length === 0 && plan.jobs.length === 0;
      el.run.textContent = `Refresh — up to ${usd(total)}`;
      enable(el.run, !nothing);
      show(el.planBox, true);
      if (nothing)
        say(
          el.message,
          "info",
          plan.olderThan
            ? `Nothing in ${scopeText(scope, plan)} is older than ${plan.olderThan.days} days.`
            : `No STR formulas and no screened tables in ${scopeText(scope, plan)}.`,
        );
      else el.run.focus();
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      enable(el.find, true);
    }
  });

  el.run.addEventListener("click", async () => {
    if (!plan || running) return;
    const current = plan;
    const controller = new AbortController();
    running = controller;
    forget();
    enable(el.find, false);
    say(el.message, undefined);
    const parts: string[] = [];
    try {
      const client = await relayClient(ctx);
      // Read again before anything is sent: cells typed since the plan are asked about, not overwritten.
      const now = await checkTableDestinations(ctx.run, current.jobs, current.blocks);
      if (coveredCells(now) > coveredCells(current.destinations)) {
        plan = { ...current, destinations: now };
        renderOverwrite(el, now);
        show(el.planBox, true);
        say(el.message, "warning", "Cells of yours appeared where results go: choose, then refresh again.");
        return;
      }
      if (current.targets.formulas.length > 0) {
        say(el.message, "info", `Recalculating ${current.targets.formulas.length} STR formulas past the cache…`);
        const { calls } = await recalculateFormulas(ctx.run, ctx.gate, current.targets, {
          signal: controller.signal,
          ...(current.olderThan ? { freshSince: current.olderThan.freshSince } : {}),
        });
        parts.push(
          `${calls} STR formula ${calls === 1 ? "call was" : "calls were"} sent again; the cells update as the answers arrive.`,
        );
      }
      if (current.jobs.length > 0 && !controller.signal.aborted) {
        progress.reset(current.jobs.reduce((n, j) => n + j.rows.filter((r) => r.kind !== "blank").length, 0));
        show(el.progressBox, true);
        el.cancel.focus();
        const jobs = placeTables(current.jobs, now, placement());
        // The tables' rewrite is one undo step where Excel can group it.
        const group = ctx.undoGroup();
        const result = await refreshTables({ client, run: group.run }, jobs, {
          signal: controller.signal,
          sandbox: current.tables.sandbox,
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
      } else {
        say(
          el.message,
          controller.signal.aborted ? "warning" : "success",
          controller.signal.aborted ? "Cancelled." : parts.join(" "),
        );
      }
    } catch (error) {
      say(el.message, "error", [...parts, describeError(error)].join(" "));
    } finally {
      running = undefined;
      show(el.progressBox, false);
      enable(el.find, true);
      ctx.spendChanged();
    }
  });

  el.retryRun.addEventListener("click", async () => {
    const retry = plan?.enhanceRetry;
    if (!retry || retry.cells.length === 0 || running) return;
    show(el.retryBox, false);
    try {
      await retryEnhancements(ctx.run, retry.cells);
      say(
        el.message,
        "info",
        `${retry.cells.length} STR.ENHANCE ${retry.cells.length === 1 ? "cell asks" : "cells ask"} again, up to ${usd(retry.costUSD)}: only AI steps that complete are billed. Find what to refresh again to see any still failing, with the next try's price.`,
      );
    } catch (error) {
      say(el.message, "error", describeError(error));
    } finally {
      ctx.spendChanged();
    }
  });

  const placement = (): Placement =>
    document.querySelector<HTMLInputElement>('input[name="refresh-placement"]:checked')?.value === "overwrite"
      ? "overwrite"
      : "right";

  el.cancel.addEventListener("click", () =>
    running?.abort(new RelayCallError("STR_CANCELLED", "Cancelled in the task pane.")),
  );
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
    ["Budget left today", usd(tables.budgetRemainingUSD)],
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
  if (plan.formulaCostUSD + tables.estimatedCostUSD > tables.budgetRemainingUSD) {
    notes.push(
      h(
        "p",
        { class: "inline-error" },
        "The cost is more than the budget left today: calls past it fail with STR_BUDGET_EXCEEDED and are not billed.",
      ),
    );
  }
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
  if (unread > 0) parts.push(`${unread} with arguments the pane cannot read, at their most`);
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
