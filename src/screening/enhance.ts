import { RelayClient } from "../client";
import { BatchItem, FieldInfo, PRICE_CENTS, RelayAnswer, centsToUSD, validateRequest } from "../contract";
import { CellRow, analysisOf, text, warningsCell } from "../sheet";
import { RowOutcome, lineOutcome } from "./row-outcome";
import { PlannedRow, PlannedRows } from "./plan";

/*
 * Enhancing a shortlist with AI: rows of a screened table that have an analysis id (the result
 * block's "Analysis id" column) become `enhance` items for the AI steps asked (comparables,
 * expenses or both); rows without one are kept as they are, never sent. The relay's dry run prices
 * the plan (0.10 USD a step that completes); an enhancement whose every step fails is free, is not
 * kept by the relay, and is tried again by enhancing the row again.
 */

/** The AI steps an enhancement asks for. */
export interface EnhanceSteps {
  addAIComps: boolean;
  addAIExpenseEstimates: boolean;
}

/** Reads "comps", "expenses", "comps,expenses" (or "both"); the message names the rule. */
export function parseEnhanceSteps(input: string): { ok: true; steps: EnhanceSteps } | { ok: false; message: string } {
  const words = input
    .toLowerCase()
    .split(/[\s,;+]+/)
    .filter((w) => w !== "");
  const unknown = words.filter((w) => !/^(comps?|comparables?|expenses?|both)$/.test(w));
  if (words.length === 0 || unknown.length > 0)
    return {
      ok: false,
      message: `must list the AI steps: comps, expenses or comps,expenses; got ${JSON.stringify(input)}`,
    };
  const both = words.includes("both");
  return {
    ok: true,
    steps: {
      addAIComps: both || words.some((w) => w.startsWith("comp")),
      addAIExpenseEstimates: both || words.some((w) => w.startsWith("expense")),
    },
  };
}

/** The most one row's enhancement costs, in USD (each step 0.10 USD). */
export function enhanceCostUSD(steps: EnhanceSteps): number {
  return centsToUSD((Number(steps.addAIComps) + Number(steps.addAIExpenseEstimates)) * PRICE_CENTS.aiFunction);
}

/**
 * The plan of an enhancement: each non-blank row of `screened` with an analysis id (`analysisIdOf`
 * its sheet row) becomes one enhance item; a row without one is `kept`; an id that cannot be an
 * analysis id is refused before sending, as any bad value is.
 */
export function planEnhancement(
  screened: Pick<PlannedRows, "rows">,
  analysisIdOf: (sheetRow: number) => unknown,
  steps: EnhanceSteps,
): PlannedRows {
  const rows: PlannedRow[] = [];
  const items: BatchItem[] = [];
  const itemRows: number[] = [];
  for (const row of screened.rows) {
    const { sheetRow, property } = row;
    if (row.kind === "blank") {
      rows.push(row);
      continue;
    }
    const raw = analysisIdOf(sheetRow);
    const id = typeof raw === "string" ? raw.trim() : "";
    if (id === "") {
      rows.push({ sheetRow, property, kind: "kept" });
      continue;
    }
    const valid = validateRequest("enhance", { analysisId: id, ...steps });
    if (!valid.ok) {
      rows.push({ sheetRow, property, kind: "invalid", op: "enhance", issues: valid.issues });
      continue;
    }
    itemRows.push(rows.length);
    rows.push({ sheetRow, property, kind: "request", op: "enhance", item: items.length, unusual: [] });
    items.push({ strategy: "enhance", params: valid.value });
  }
  return { rows, items, itemRows, strategy: undefined };
}

/**
 * Whether an enhance answer came back without figures it can use: every AI step failed (free), or
 * the service's answer held no analysis with an id (its figures cannot be told to be the row's).
 */
export function isNotEnhanced(answer: RelayAnswer | undefined): answer is RelayAnswer {
  return answer !== undefined && answer.relay.operation === "enhance" && analysisOf(answer) === undefined;
}

/** Why an enhanced row came back without usable figures, and what that enhancement cost. */
export interface NotEnhanced {
  note: string;
  costUSD: number;
}

/**
 * Why an enhanced row came back without usable figures, or undefined when it has them (or is no
 * enhancement): every AI step failed (free), the answer held no analysis with an id (billed for the
 * steps it reports), the call failed (the service has no such analysis, an error), or a stop came
 * first. Such a row keeps the figures and id it had: an enhancement never erases.
 */
export function notEnhancedOf(
  row: PlannedRow,
  outcome: RowOutcome,
  answer: RelayAnswer | undefined,
): NotEnhanced | undefined {
  if (row.kind !== "request" || row.op !== "enhance") return undefined;
  const { costUSD, warnings } = outcome;
  if (isNotEnhanced(answer)) {
    const bill = costUSD > 0 ? `${costUSD.toFixed(2)} USD billed` : "nothing billed";
    const said = warnings.length > 0 ? `: ${warnings.join(" | ")}` : "";
    return { note: `Not enhanced, ${bill} (enhance it again to retry)${said}`, costUSD };
  }
  if (outcome.status === "failed" || outcome.status === "stopped")
    return { note: `Not enhanced, figures kept (enhance it again to retry): ${outcome.error ?? "no answer"}`, costUSD };
  return undefined;
}

/**
 * A row whose enhancement came back without figures keeps the analysis it had: the relay's stored
 * copy (free to read), its cells and comparables, with the note saying why and the enhancement's
 * cost. Undefined when the relay does not hold it (the caller then keeps the row's earlier cells,
 * notEnhancedCells).
 */
export async function storedOutcome(
  client: Pick<RelayClient, "analysis">,
  analysisId: string,
  fields: readonly FieldInfo[],
  notEnhanced: NotEnhanced,
  signal?: AbortSignal,
): Promise<{ outcome: RowOutcome; answer: RelayAnswer } | undefined> {
  let stored: RelayAnswer;
  try {
    stored = await client.analysis(analysisId, signal ? { signal } : {});
  } catch {
    return undefined;
  }
  const { outcome } = lineOutcome(stored, fields);
  const cells = notEnhancedCells(outcome.cells, notEnhanced.note);
  return { outcome: { ...outcome, cells, warnings: [notEnhanced.note], costUSD: notEnhanced.costUSD }, answer: stored };
}

/** The cells of a row whose enhancement came back without usable figures: its earlier cells, figures and id kept, the note last. */
export function notEnhancedCells(earlier: CellRow, note: string): CellRow {
  if (earlier.length === 0) return earlier;
  const cells = [...earlier];
  cells[cells.length - 1] = text(warningsCell([note]));
  return cells;
}
