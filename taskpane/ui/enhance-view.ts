import { PlannedRow, RowOutcome, enhanceCostUSD } from "../../src/screening";
import { describeError } from "../pane-error";
import { planShortlist, readShortlist } from "../enhance-shortlist";
import { SheetTable } from "../excel/read-table";
import { runOffer } from "../run-offer";
import { ScreeningJob, estimate, runScreening } from "../screen";
import { budgetLeftFigure, usd } from "../spend";
import { PaneContext, relayClient } from "./context";
import { byId, enable, figures, h, say, show } from "./dom";
import { outcomeMessage } from "./progress-view";

/**
 * "Enhance selected rows with AI", under the Screen tab's table: the AI steps to run, the price of the
 * selected rows from the relay's dry run (nothing is sent before the user confirms it), then the
 * enhancement, written over the same rows, and the AI's warnings listed.
 */
export function mountEnhance(ctx: PaneContext): { setTable(table: SheetTable): void } {
  const el = enhanceElements();
  const state: EnhanceState = { priced: undefined, table: undefined };
  const reset = () => {
    state.priced = undefined;
    show(el.estimateBox, false);
  };
  [el.comps, el.expenses].forEach((box) => box.addEventListener("change", reset));
  el.price.addEventListener("click", async () => {
    reset();
    await priceSelection(ctx, el, state);
  });
  el.run.addEventListener("click", async () => {
    const priced = state.priced;
    if (!priced) return;
    reset();
    await runEnhancement(ctx, el, priced);
  });
  return {
    // Offered for a screened table: one with an earlier run's result columns.
    setTable: (read) => {
      state.table = read;
      reset();
      say(el.message, undefined);
      show(el.box, read.block !== undefined);
    },
  };
}

type EnhanceElements = ReturnType<typeof enhanceElements>;

/** The table last read, and the enhancement last priced (what Enhance runs; cleared when the choice changes). */
interface EnhanceState {
  priced: PricedEnhancement | undefined;
  table: SheetTable | undefined;
}

interface PricedEnhancement {
  job: ScreeningJob;
  sandbox: boolean;
}

function enhanceElements() {
  return {
    box: byId("enhance-box"),
    comps: byId<HTMLInputElement>("enhance-comps"),
    expenses: byId<HTMLInputElement>("enhance-expenses"),
    price: byId("enhance-price"),
    estimateBox: byId("enhance-estimate"),
    estimateList: byId("enhance-estimate-list"),
    run: byId("enhance-run"),
    message: byId("enhance-message"),
  };
}

/** Prices the selected rows' enhancement with the relay's dry run, sending nothing, and offers it. */
async function priceSelection(ctx: PaneContext, el: EnhanceElements, state: EnhanceState): Promise<void> {
  say(el.message, undefined);
  const steps = { addAIComps: el.comps.checked, addAIExpenseEstimates: el.expenses.checked };
  const table = state.table;
  if (!table) return say(el.message, "error", "Read the screened table first (Read selected table, above).");
  if (!steps.addAIComps && !steps.addAIExpenseEstimates)
    return say(el.message, "error", "Choose at least one AI step: comparables or expenses.");
  enable(el.price, false);
  try {
    const { selected, ids } = await readShortlist(ctx.run, table);
    const job = planShortlist(table, selected, ids, steps);
    const price = await estimate(await relayClient(ctx), [job]);
    ctx.setMode(price.sandbox ? "sandbox" : "live");
    const kept = job.rows.filter((r) => r.kind === "kept").length;
    figures(el.estimateList, [
      ["Rows to enhance", String(price.items), `${usd(enhanceCostUSD(steps))} each at most`],
      ...(kept > 0 ? [["Rows without an analysis id", String(kept), "left as they are"] as const] : []),
      ["Cached", String(price.cached), "enhanced before: free"],
      ["Price", usd(price.estimatedCostUSD), "0.10 USD a step that completes; a failed step is free"],
      budgetLeftFigure(price.budgetRemainingUSD),
    ]);
    el.run.textContent = `Enhance ${price.items} rows — up to ${usd(price.estimatedCostUSD)}`;
    const offer = runOffer(price);
    state.priced = offer.offered ? { job, sandbox: price.sandbox } : undefined;
    show(el.run, offer.offered);
    show(el.estimateBox, price.items > 0);
    if (price.items === 0) say(el.message, "warning", "None of the selected rows has an analysis id to enhance.");
    else if (!offer.offered) say(el.message, "warning", h("strong", {}, offer.reason), " ", offer.advice);
  } catch (error) {
    say(el.message, "error", describeError(error));
  } finally {
    enable(el.price, true);
  }
}

/** Runs the priced enhancement in one undo step, then says how it went, with the AI's warnings. */
async function runEnhancement(ctx: PaneContext, el: EnhanceElements, { job, sandbox }: PricedEnhancement) {
  enable(el.price, false);
  const warnings: string[] = [];
  const group = ctx.undoGroup();
  try {
    const client = await relayClient(ctx);
    const result = await runScreening({ client, run: group.run }, job, {
      sandbox,
      onOutcome: (row: PlannedRow, outcome: RowOutcome) => warnings.push(...rowWarnings(row.sheetRow, outcome)),
    });
    const outcome = outcomeMessage(result, "enhance the rows");
    say(el.message, outcome.intent, outcome.text, warningList(warnings));
  } catch (error) {
    say(el.message, "error", describeError(error, "may-bill"));
  } finally {
    await group.close().catch((error: unknown) => say(el.message, "error", describeError(error)));
    enable(el.price, true);
    ctx.spendChanged();
  }
}

function rowWarnings(sheetRow: number, outcome: RowOutcome): string[] {
  return outcome.warnings.filter((w) => !w.startsWith("SANDBOX")).map((w) => `Row ${sheetRow + 1}: ${w}`);
}

function warningList(warnings: readonly string[]): HTMLElement | string {
  if (warnings.length === 0) return "";
  const shown = warnings.slice(0, 8).map((w) => h("li", {}, `⚠ ${w}`));
  if (warnings.length > 8) shown.push(h("li", {}, `… and ${warnings.length - 8} more, in the rows' Warnings cells.`));
  return h("ul", { class: "small" }, ...shown);
}
