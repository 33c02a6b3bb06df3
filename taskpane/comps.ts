import { RelayClient } from "../src/client";
import { Analysis, Comparable } from "../src/contract";
import { analysisOf, warningTexts } from "../src/sheet";
import { PaneError } from "./pane-error";
import { PercentilePoint, revenuePercentiles } from "./excel/comparables-sheet";
import { Seasonality, seasonalityOf } from "./seasonality";

/**
 * The comparables viewer's data: the stored analysis (GET /v1/analyses/:id, from the relay's store:
 * no call to the service, nothing billed) with its comparables, which batched screening answers
 * leave out, and its revenue percentiles for the chart.
 */
export interface ComparablesView {
  id: string;
  address: string | undefined;
  sandbox: boolean;
  warnings: string[];
  percentiles: PercentilePoint[];
  /** The twelve months, or that the service gave none. */
  season: Seasonality;
  comparables: Comparable[];
  analysis: Analysis;
}

export async function loadComparables(
  client: Pick<RelayClient, "analysis">,
  id: string,
  signal?: AbortSignal,
): Promise<ComparablesView> {
  const answer = await client.analysis(id, signal ? { signal } : {});
  const analysis = analysisOf(answer);
  if (!analysis)
    throw new PaneError(
      `The relay holds analysis ${id} without its figures (an enhance whose AI steps all failed): select the analysis it enhanced.`,
    );
  return {
    id,
    address: typeof analysis.fullAddress === "string" ? analysis.fullAddress : undefined,
    sandbox: answer.relay.sandbox,
    warnings: warningTexts(answer),
    percentiles: revenuePercentiles(analysis),
    season: seasonalityOf(analysis),
    comparables: (analysis.comparables ?? []) as Comparable[],
    analysis,
  };
}
