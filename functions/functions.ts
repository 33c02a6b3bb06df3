/*
 * The STR.* custom functions, each declared once: its JSDoc, then its body. The JSDoc is the only
 * source of functions.json: the summary and each @param are what Excel shows in autocomplete and the
 * Insert Function dialog, so they give units and ranges. custom-functions-metadata-plugin appends the
 * CustomFunctions.associate calls at build time. `@helpurl` is the function's section of help.html on
 * the dev server; the relay moves it to its own URL when it serves functions.json
 * (src/relay/addin/addin-files.ts), as it does the manifest's URLs.
 *
 * The TypeScript types are what custom-functions-metadata reads, so they are chosen for Excel:
 * - `unknown` for single values (metadata type "any"): the argument arrives as Excel holds it, so
 *   "$415,000" or "6.5%" in a cell is read the way a screening column is (src/inputs), a blank cell
 *   is "required" rather than a silent 0, and a bad value gets #VALUE! naming the argument and its
 *   rule. Typed `number`, Excel would give a bare #VALUE! before the function runs.
 * - `unknown[][]`: a matrix of any values (metadata type "any", dimensionality "matrix"). That is how a
 *   1×2 range of coordinates or a name/value table arrives; a single value arrives as [[value]].
 *   A union such as `string | unknown[][]` would be read as a scalar, so none is used here.
 * - `?`: optional in Excel. An omitted argument arrives as null, not undefined, so the bodies take
 *   both for "omitted". TypeScript puts no required parameter after an optional one, so the
 *   invocation is `?` too, though Excel always passes it.
 * - CustomFunctions.CancelableInvocation last (and @cancelable): Excel cancels the call when its cell
 *   is deleted or recalculated, and the body stops waiting on the relay.
 *
 * The bodies stay thin: read the arguments (src/inputs), ask the relay (src/client), lay the answer
 * out (src/sheet). Bad arguments fail at once with #VALUE! naming the argument and its rule, and
 * nothing is sent. Each runs through ./custom-function, which owns value preview, cancellation, the
 * Excel errors and the call's way to the relay, so none of them handles those on its own.
 */
import { Analysis, RelayAnswer, SessionAnswer, Strategy, UNIT_FORMATS } from "../src/contract";
import { maxBid, projectHold, whatIf } from "../src/model";
import { RelayCallError } from "../src/client";
import {
  CellInput,
  RangeInput,
  cardRequest,
  enhanceRequest,
  functionRequest,
  readAnalysisId,
  readBidArguments,
  readProjectionArguments,
  readSensitivityArguments,
  readWhatIfArguments,
  single,
} from "../src/inputs";
import {
  Grid,
  SANDBOX_NOTICE,
  analysisCard,
  analysisEntity,
  analysisOf,
  cell,
  comparablesTable,
  fieldsRow,
  invalidArgument,
  monthlyTable,
  parseFieldList,
  projectionGrid,
  readMaxRows,
  sensitivityGrid,
  text,
  warningTexts,
  whatIfChanges,
} from "../src/sheet";
import {
  Invocation,
  accepted,
  ask,
  billable,
  free,
  hostSupport,
  storedAnswer,
  storedFullAnswer,
} from "./custom-function";

/**
 * Underwrites buying a property to run as a short-term rental: revenue, nightly rate and occupancy percentiles, cash flow and returns.
 * @customfunction BUY
 * @helpurl https://localhost:3000/help.html#str-buy
 * @cancelable
 * @param location Address, "lat,lng", or a 1×2 range of latitude and longitude.
 * @param purchasePrice Purchase price in USD, more than 0.
 * @param bedrooms Bedrooms, a whole number from 0 (studio) to 50.
 * @param bathrooms Bathrooms, 0 to 50 in steps of 0.5.
 * @param guests Guests the property sleeps, a whole number from 1 to 100.
 * @param options Optional parameters as a two-column name/value range or "name=value; …" text, e.g. "interestRatePercentage=6.5; addAIComps=TRUE".
 * @param fields Field paths or labels for one screening row, e.g. "revenue.p50, yearOneCashFlowUSD"; omit for the full card.
 * @param invocation Supplied by Excel.
 * @returns The analysis as a card leading with the decision (price, loan, payment, cash flow, returns, DSCR), then the percentiles, or one row of the requested fields, with the service's warnings.
 */
export function buy(
  location: unknown[][],
  purchasePrice: unknown,
  bedrooms: unknown,
  bathrooms: unknown,
  guests: unknown,
  options?: unknown[][],
  fields?: unknown[][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return create("buy", location, [purchasePrice, bedrooms, bathrooms, guests], options, fields, invocation);
}

/**
 * Underwrites renting a property and subletting it as a short-term rental (rental arbitrage): revenue net of rent, cash flow and returns.
 * @customfunction ARB
 * @helpurl https://localhost:3000/help.html#str-arb
 * @cancelable
 * @param location Address, "lat,lng", or a 1×2 range of latitude and longitude.
 * @param monthlyRent Rent you pay the owner, in USD a month, more than 0.
 * @param bedrooms Bedrooms, a whole number from 0 (studio) to 50.
 * @param bathrooms Bathrooms, 0 to 50 in steps of 0.5.
 * @param guests Guests the property sleeps, a whole number from 1 to 100.
 * @param options Optional parameters as a two-column name/value range or "name=value; …" text, e.g. "purchasePriceUSD=450000; addAIComps=TRUE".
 * @param fields Field paths or labels for one screening row, e.g. "revenue.p50, yearOneCashFlowUSD"; omit for the full card.
 * @param invocation Supplied by Excel.
 * @returns The analysis as a card leading with the decision (price, loan, payment, cash flow, returns, DSCR), then the percentiles, or one row of the requested fields, with the service's warnings.
 */
export function arb(
  location: unknown[][],
  monthlyRent: unknown,
  bedrooms: unknown,
  bathrooms: unknown,
  guests: unknown,
  options?: unknown[][],
  fields?: unknown[][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return create("arb", location, [monthlyRent, bedrooms, bathrooms, guests], options, fields, invocation);
}

/**
 * Underwrites a property you already own, with its mortgage terms, as a short-term rental: revenue, cash flow and returns.
 * @customfunction OWNED
 * @helpurl https://localhost:3000/help.html#str-owned
 * @cancelable
 * @param location Address, "lat,lng", or a 1×2 range of latitude and longitude.
 * @param purchasePrice Price you paid in USD, more than 0.
 * @param downPaymentPct Down payment in percent of the price, 0 to 40.
 * @param interestRatePct Interest rate in percent, 0 to 15.
 * @param mortgageYears Mortgage length in years, 0 to 30.
 * @param yearsRemaining Years left on the mortgage, 0 to mortgageYears.
 * @param bedrooms Bedrooms, a whole number from 0 (studio) to 50.
 * @param bathrooms Bathrooms, 0 to 50 in steps of 0.5.
 * @param guests Guests the property sleeps, a whole number from 1 to 100.
 * @param options Optional parameters as a two-column name/value range or "name=value; …" text, e.g. "monthlyRentUSD=2400; addAIExpenseEstimates=TRUE".
 * @param fields Field paths or labels for one screening row, e.g. "revenue.p50, yearOneCashFlowUSD"; omit for the full card.
 * @param invocation Supplied by Excel.
 * @returns The analysis as a card leading with the decision (price, loan, payment, cash flow, returns, DSCR), then the percentiles, or one row of the requested fields, with the service's warnings.
 */
export function owned(
  location: unknown[][],
  purchasePrice: unknown,
  downPaymentPct: unknown,
  interestRatePct: unknown,
  mortgageYears: unknown,
  yearsRemaining: unknown,
  bedrooms: unknown,
  bathrooms: unknown,
  guests: unknown,
  options?: unknown[][],
  fields?: unknown[][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return create(
    "owned",
    location,
    [purchasePrice, downPaymentPct, interestRatePct, mortgageYears, yearsRemaining, bedrooms, bathrooms, guests],
    options,
    fields,
    invocation,
  );
}

/**
 * Underwrites co-hosting a property for its owner: projected revenue, your commission and the owner's return.
 * @customfunction COHOST
 * @helpurl https://localhost:3000/help.html#str-cohost
 * @cancelable
 * @param location Address, "lat,lng", or a 1×2 range of latitude and longitude.
 * @param bedrooms Bedrooms, a whole number from 0 (studio) to 50.
 * @param bathrooms Bathrooms, 0 to 50 in steps of 0.5.
 * @param guests Guests the property sleeps, a whole number from 1 to 100.
 * @param commissionPct Your co-host commission in percent of revenue, 0 to 100; omit for the service's default.
 * @param options Optional parameters as a two-column name/value range or "name=value; …" text, e.g. "squareFeet=1400; addAIComps=TRUE".
 * @param fields Field paths or labels for one screening row, e.g. "revenue.p50, yearOneCohostCommissionUSD"; omit for the full card.
 * @param invocation Supplied by Excel.
 * @returns The analysis as a card leading with the decision (price, loan, payment, cash flow, returns, DSCR), then the percentiles, or one row of the requested fields, with the service's warnings.
 */
export function cohost(
  location: unknown[][],
  bedrooms: unknown,
  bathrooms: unknown,
  guests: unknown,
  commissionPct?: unknown,
  options?: unknown[][],
  fields?: unknown[][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return create("cohost", location, [bedrooms, bathrooms, guests, commissionPct], options, fields, invocation);
}

/**
 * Adds AI comparables and AI expense estimates to an earlier analysis and recalculates it. Each AI step that completes costs 0.10 USD.
 * @customfunction ENHANCE
 * @helpurl https://localhost:3000/help.html#str-enhance
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.ARB, STR.OWNED or STR.COHOST (its "Analysis id" row).
 * @param aiComps TRUE to pick comparables with AI (US addresses with enough listing photos). Omit both AI flags to run both.
 * @param aiExpenses TRUE to estimate operating expenses with AI instead of category defaults. Omit both AI flags to run both.
 * @param fields Field paths or labels for one screening row, e.g. "revenue.p50, yearOneCashFlowUSD"; omit for the full card.
 * @param invocation Supplied by Excel.
 * @returns The recalculated analysis as a label/value card, or one row of the requested fields, with the service's warnings.
 */
export function enhance(
  analysisId: unknown,
  aiComps?: unknown,
  aiExpenses?: unknown,
  fields?: unknown[][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return billable(invocation, {
    read: () => ({
      // Both AI flags omitted: run both (src/inputs/billed-calls.ts, which the pane prices a refresh by too).
      request: accepted(enhanceRequest(analysisId, aiComps, aiExpenses)).request,
      layout: readLayout(fields, undefined),
    }),
    answer: async (args, call) => {
      const { request, layout } = args();
      return layout(await ask("enhance", request, call));
    },
  });
}

/**
 * Lists the comparable listings behind an analysis under a header row: size, guests, annual revenue, nightly rate, occupancy, distance, link and first photo URL (for IMAGE()).
 * @customfunction COMPS
 * @helpurl https://localhost:3000/help.html#str-comps
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.ARB, STR.OWNED, STR.COHOST or STR.ENHANCE (its "Analysis id" row).
 * @param maxRows Most comparables to list, a whole number of 1 or more; omit for all of them (the service sends at most 50).
 * @param invocation Supplied by Excel.
 * @returns A table of comparables with a header row.
 */
export function comps(
  analysisId: unknown,
  maxRows?: unknown,
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => {
      const id = accepted(readAnalysisId(analysisId)).value;
      // A bad maxRows fails before anything is asked of the relay.
      const cap = readMaxRows(single(maxRows) ?? undefined);
      if (!cap.ok) throw invalidArgument(cap.message);
      return id;
    },
    answer: async (args, call) => {
      const answer = await storedFullAnswer(args(), call);
      // The answer's notices (SANDBOX, STALE) and warnings travel with every comparable row.
      const table = comparablesTable(analysisOf(answer), single(maxRows) ?? undefined, warningTexts(answer));
      if (!table.ok) throw invalidArgument(table.message);
      return table.grid;
    },
  });
}

/**
 * Lists an analysis's twelve months under a header row: nightly rate, occupancy and revenue of each month, as the service gave them (its seasonality).
 * @customfunction MONTHLY
 * @helpurl https://localhost:3000/help.html#str-monthly
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.ARB, STR.OWNED, STR.COHOST or STR.ENHANCE (its "Analysis id" row).
 * @param invocation Supplied by Excel.
 * @returns A table of twelve months with a header row, or one row saying the service gave no monthly figures.
 */
export function monthly(analysisId: unknown, invocation?: CustomFunctions.CancelableInvocation): Promise<unknown[][]> {
  return free(invocation, {
    read: () => accepted(readAnalysisId(analysisId)).value,
    answer: async (args, call) => {
      const answer = await storedFullAnswer(args(), call);
      // The answer's notices (SANDBOX, STALE) and warnings travel with every month.
      return monthlyTable(analysisOf(answer), warningTexts(answer));
    },
  });
}

/**
 * Recomputes an analysis's financing and cash flow with other inputs, locally: never billed, no call to the service. Omitted arguments keep the analysis's own values.
 * @customfunction WHATIF
 * @helpurl https://localhost:3000/help.html#str-whatif
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.ARB, STR.OWNED, STR.COHOST or STR.ENHANCE (its "Analysis id" row).
 * @param purchasePrice Purchase price in USD; omit to keep the analysis's.
 * @param downPaymentPct Down payment in percent of the price, 0 to 100; omit to keep the analysis's.
 * @param interestRatePct Interest rate in percent; omit to keep the analysis's.
 * @param mortgageYears Mortgage length in years; omit to keep the analysis's.
 * @param scenario Revenue scenario: p25 (bear), p50, p75 (bull), p90 or avg of the comparables; omit for the analysis's own projection.
 * @param fields Field paths or labels for one row, e.g. "yearOneCashFlowUSD, DSCR"; omit for the full card.
 * @param invocation Supplied by Excel.
 * @returns The recomputed analysis as a card headed What-if with what it changed, or one row of the requested fields.
 */
export function whatif(
  analysisId: unknown,
  purchasePrice?: unknown,
  downPaymentPct?: unknown,
  interestRatePct?: unknown,
  mortgageYears?: unknown,
  scenario?: unknown,
  fields?: unknown[][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => {
      const { value: inputs } = accepted(
        readWhatIfArguments({ purchasePrice, downPaymentPct, interestRatePct, mortgageYears, scenario }),
      );
      const id = accepted(readAnalysisId(analysisId)).value;
      return { id, inputs, layout: readLayout(fields, undefined, whatIfChanges(inputs)) };
    },
    answer: async (args, call) => {
      const { id, inputs, layout } = args();
      const answer = await storedAnswer(id, call);
      const analysis = analysisOf(answer);
      const result = analysis
        ? whatIf(analysis, inputs)
        : { ok: false as const, message: "the answer holds no analysis" };
      if (!result.ok)
        throw invalidArgument([{ path: "analysisId", message: `cannot be recomputed: ${result.message}` }]);
      // A what-if is computed here from a stored analysis: nothing was fetched or billed for it.
      return layout({ ...answer, data: result.analysis, session: "computed" });
    },
  });
}

/**
 * A grid of one metric across two variables, e.g. cash-on-cash by price and interest rate, computed locally from an analysis: never billed, no call to the service.
 * @customfunction SENSITIVITY
 * @helpurl https://localhost:3000/help.html#str-sensitivity
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.ARB, STR.OWNED, STR.COHOST or STR.ENHANCE.
 * @param rowVariable What varies down the rows: purchasePrice, downPaymentPct, interestRatePct, mortgageYears, scenario, occupancy, nightlyRate, revenue, rent, commissionPct or expenses.
 * @param rowValues The row variable's values: a column of cells, or text such as "5, 6, 7".
 * @param columnVariable What varies across the columns (one of the same names).
 * @param columnValues The column variable's values: a row of cells, or text such as "p25, p50, p75".
 * @param metric The field to show, by path or label, e.g. "yearOneCashOnCashPercentage" or "DSCR".
 * @param invocation Supplied by Excel.
 * @returns The grid, its axes named in words: the metric in the corner, column values across, row values down; SANDBOX when simulated.
 */
export function sensitivity(
  analysisId: unknown,
  rowVariable: unknown,
  rowValues: unknown[][],
  columnVariable: unknown,
  columnValues: unknown[][],
  metric: unknown,
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => ({
      id: accepted(readAnalysisId(analysisId)).value,
      ...accepted(
        readSensitivityArguments(
          rowVariable,
          rowValues as RangeInput,
          columnVariable,
          columnValues as RangeInput,
          metric,
        ),
      ).value,
    }),
    answer: async (args, call) => {
      const { id, rows, columns, field } = args();
      const answer = await storedAnswer(id, call);
      const grid = sensitivityGrid(analysisIn(answer), rows, columns, field, { sandbox: answer.relay.sandbox });
      if (!grid.ok) throw invalidArgument([{ path: "rowVariable", message: grid.message }]);
      return grid.grid;
    },
  });
}

/**
 * The highest purchase price at which a metric still meets your target, computed locally from an analysis with STR.WHATIF's model: never billed, no call to the service.
 * @customfunction MAXBID
 * @helpurl https://localhost:3000/help.html#str-maxbid
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.OWNED or STR.ENHANCE of either (its "Analysis id" row).
 * @param metric What must meet the target: cash-on-cash, DSCR, cap rate or cash flow (year one).
 * @param target The least acceptable value: a percentage for cash-on-cash and cap rate (8%), a ratio for DSCR (1.25), USD a year for cash flow.
 * @param scenario Revenue scenario: p25 (bear), p50, p75 (bull), p90 or avg of the comparables; omit for the analysis's own projection.
 * @param downPaymentPct Down payment in percent of the price, 0 to 100; omit to keep the analysis's.
 * @param interestRatePct Interest rate in percent; omit to keep the analysis's.
 * @param mortgageYears Mortgage length in years; omit to keep the analysis's.
 * @param invocation Supplied by Excel.
 * @returns The price in USD, to the cent (beside it SANDBOX when simulated); #N/A with the reason when no price meets the target.
 */
export function maxbid(
  analysisId: unknown,
  metric: unknown,
  target: unknown,
  scenario?: unknown,
  downPaymentPct?: unknown,
  interestRatePct?: unknown,
  mortgageYears?: unknown,
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => ({
      id: accepted(readAnalysisId(analysisId)).value,
      ...accepted(readBidArguments(metric, target)).value,
      inputs: accepted(readWhatIfArguments({ scenario, downPaymentPct, interestRatePct, mortgageYears })).value,
    }),
    answer: async (args, call) => {
      const { id, metric: m, target: t, inputs } = args();
      const answer = await storedAnswer(id, call);
      const result = maxBid(analysisIn(answer), { ...inputs, metric: m, target: t });
      if (!result.ok && result.reason === "no-price")
        throw invalidArgument([{ path: "analysisId", message: `has no maximum bid: ${result.message}` }]);
      if (!result.ok) throw new RelayCallError("STR_TARGET_UNREACHABLE", result.message);
      const bid = cell(result.priceUSD, UNIT_FORMATS.usd);
      // A simulated bid spills its mark beside it: one cell alone would look like a real price.
      return [answer.relay.sandbox ? [bid, text(SANDBOX_NOTICE)] : [bid]];
    },
  });
}

/**
 * A hold-period projection from an analysis: year by year revenue, expenses, net operating income, debt service, cash flow, loan balance, value and equity, then IRR, equity multiple and profit after a sale. Computed locally: never billed.
 * @customfunction PROJECTION
 * @helpurl https://localhost:3000/help.html#str-projection
 * @cancelable
 * @param analysisId Analysis id from STR.BUY, STR.OWNED or STR.ENHANCE of either (its "Analysis id" row).
 * @param years Years held before selling, a whole number from 1 to 30.
 * @param appreciationPct Property appreciation in percent a year, -20 to 20; omit for the analysis's own (3).
 * @param revenueGrowthPct Revenue growth in percent a year, -20 to 20; omit for 3.
 * @param expenseGrowthPct Operating expense growth in percent a year, -20 to 20; omit for 3.
 * @param sellingCostPct Selling costs in percent of the sale price, 0 to 20; omit for 6.
 * @param purchasePrice Purchase price in USD; omit to keep the analysis's.
 * @param downPaymentPct Down payment in percent of the price, 0 to 100; omit to keep the analysis's.
 * @param interestRatePct Interest rate in percent; omit to keep the analysis's.
 * @param mortgageYears Mortgage length in years; omit to keep the analysis's.
 * @param invocation Supplied by Excel.
 * @returns The assumptions and results (IRR, equity multiple, profit, proceeds at sale), a blank row, then the year table under its own title and header.
 */
export function projection(
  analysisId: unknown,
  years: unknown,
  appreciationPct?: unknown,
  revenueGrowthPct?: unknown,
  expenseGrowthPct?: unknown,
  sellingCostPct?: unknown,
  purchasePrice?: unknown,
  downPaymentPct?: unknown,
  interestRatePct?: unknown,
  mortgageYears?: unknown,
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  const rates = { appreciationPct, revenueGrowthPct, expenseGrowthPct, sellingCostPct };
  const financing = { purchasePrice, downPaymentPct, interestRatePct, mortgageYears };
  return free(invocation, {
    read: () => ({
      id: accepted(readAnalysisId(analysisId)).value,
      inputs: accepted(readProjectionArguments(years, rates, financing)).value,
    }),
    answer: async (args, call) => {
      const { id, inputs } = args();
      const answer = await storedAnswer(id, call);
      const result = projectHold(analysisIn(answer), inputs);
      if (!result.ok)
        throw invalidArgument([{ path: "analysisId", message: `cannot be projected: ${result.message}` }]);
      return projectionGrid(result.years, result.summary, { sandbox: answer.relay.sandbox, months: result.months });
    },
  });
}

/**
 * The analysis as one cell: an Excel data type whose card shows revenue, financials, comparables and warnings, and whose fields formulas read, e.g. =A2.[Cash flow]. Where Excel cannot show data types, it spills the card instead.
 * @customfunction CARD
 * @helpurl https://localhost:3000/help.html#str-card
 * @cancelable
 * @param strategy buy, arb, owned or cohost.
 * @param location Address, "lat,lng", or a 1×2 range of latitude and longitude.
 * @param values The strategy's own arguments in STR.BUY/ARB/OWNED/COHOST order, then options if any: e.g. for buy 450000, 3, 2, 8.
 * @param invocation Supplied by Excel.
 * @returns An entity value in one cell (or the card as a spill where entities are not supported).
 */
export function card(
  strategy: unknown,
  location: unknown[][],
  values: unknown[][][],
  invocation?: CustomFunctions.CancelableInvocation,
): Promise<unknown[][]> {
  return billable(invocation, {
    read: () => accepted(cardRequest(strategy, location, values ?? [])),
    answer: async (args, call) => {
      const { strategy: s, request } = args();
      const metrics = await ask(s, request, call);
      const support = hostSupport();
      // Data types need ExcelApi 1.16; elsewhere the card spills as STR.BUY's does.
      if (support.formattedNumbers === "none") return analysisCard(metrics, { strategy: s });
      // The entity shows comparables, which batched answers leave out: read them from the relay's store (free).
      const id = analysisOf(metrics)?._id;
      const full = typeof id === "string" ? await storedFullAnswer(id, call).catch(() => metrics) : metrics;
      const entity = analysisEntity(full, support, { strategy: s });
      // A 1×1 result: the entity in its cell (the card spill is the fallback when there is none).
      return entity ? { excelValues: [[entity]] } : analysisCard(metrics, { strategy: s });
    },
  });
}

/** STR.BUY, ARB, OWNED and COHOST: the strategy's request from its arguments, then the card or a row. */
function create(
  op: Strategy,
  location: unknown[][],
  positional: unknown[],
  options: unknown[][] | null | undefined,
  fields: unknown[][] | null | undefined,
  invocation: Invocation,
): Promise<unknown[][]> {
  return billable(invocation, {
    read: () => {
      const given = (options ?? undefined) as CellInput | RangeInput | undefined;
      const { request } = accepted(functionRequest(op, location as RangeInput, positional, given));
      return { request, layout: readLayout(fields, op) };
    },
    // The request is read by the batcher when the call's slice of a recalculation comes (src/client/batcher.ts).
    answer: async (args, call) => args().layout(await ask(op, () => args().request, call)),
  });
}

/** The analysis in a stored answer, for the functions that compute from it. */
function analysisIn(answer: RelayAnswer): Analysis {
  const analysis = analysisOf(answer);
  if (!analysis) throw invalidArgument([{ path: "analysisId", message: "holds no analysis" }]);
  return analysis;
}

type Layout = (answer: SessionAnswer) => Grid;

/**
 * `fields` → a layout: one screening row, or the whole card (a what-if's says what it changed). Bad
 * field names fail before anything is sent.
 */
function readLayout(
  fields: unknown[][] | null | undefined,
  strategy: Strategy | undefined,
  whatIf?: readonly string[],
): Layout {
  const given =
    fields !== null &&
    fields !== undefined &&
    fields.some((row) => row.some((c) => c !== null && c !== undefined && c !== ""));
  if (!given)
    return (answer) => analysisCard(answer, { ...(strategy ? { strategy } : {}), ...(whatIf ? { whatIf } : {}) });
  const parsed = parseFieldList(fields, strategy ? { strategy } : {});
  if (!parsed.ok) throw invalidArgument([{ path: "fields", message: parsed.message.replace(/^fields:\s*/, "") }]);
  return (answer) => [fieldsRow(answer, parsed.fields)];
}
