import {
  AnyRequest,
  Analysis,
  Operation,
  RelayAnswer,
  SessionAnswer,
  Strategy,
  UNIT_FORMATS,
  Validated,
  maxBid,
  projectHold,
  whatIf,
} from "../src/contract";
import { RelayCallError, RequestSource, addinConnection, refreshGate } from "../src/client";
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
  analysisCard,
  analysisEntity,
  analysisOf,
  cell,
  text,
  SANDBOX_NOTICE,
  monthlyTable,
  comparablesTable,
  fieldsRow,
  invalidArgument,
  parseFieldList,
  projectionGrid,
  warningTexts,
  whatIfChanges,
  readMaxRows,
  sensitivityGrid,
} from "../src/sheet";
import { Call, Invocation, billable, cancelled, free, hostSupport } from "./custom-function";

/*
 * What each STR.* function does, kept thin: read the arguments (src/inputs), ask the relay
 * (src/client), lay the answer out (src/sheet). Bad arguments fail at once with #VALUE! naming the
 * argument and its rule, and nothing is sent. Each runs through ./custom-function, which owns value
 * preview, cancellation and the Excel errors, so none of them handles those on its own.
 */

type Arg = unknown;

export function buy(
  location: unknown[][],
  purchasePrice: Arg,
  bedrooms: Arg,
  bathrooms: Arg,
  guests: Arg,
  options?: unknown[][] | null,
  fields?: unknown[][] | null,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return create("buy", location, [purchasePrice, bedrooms, bathrooms, guests], options, fields, invocation);
}

export function arb(
  location: unknown[][],
  monthlyRent: Arg,
  bedrooms: Arg,
  bathrooms: Arg,
  guests: Arg,
  options?: unknown[][] | null,
  fields?: unknown[][] | null,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return create("arb", location, [monthlyRent, bedrooms, bathrooms, guests], options, fields, invocation);
}

export function owned(
  location: unknown[][],
  purchasePrice: Arg,
  downPaymentPct: Arg,
  interestRatePct: Arg,
  mortgageYears: Arg,
  yearsRemaining: Arg,
  bedrooms: Arg,
  bathrooms: Arg,
  guests: Arg,
  options?: unknown[][] | null,
  fields?: unknown[][] | null,
  invocation?: Invocation,
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

export function cohost(
  location: unknown[][],
  bedrooms: Arg,
  bathrooms: Arg,
  guests: Arg,
  commissionPct?: Arg,
  options?: unknown[][] | null,
  fields?: unknown[][] | null,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return create("cohost", location, [bedrooms, bathrooms, guests, commissionPct], options, fields, invocation);
}

export function enhance(
  analysisId: Arg,
  aiComps?: Arg,
  aiExpenses?: Arg,
  fields?: unknown[][] | null,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return billable(invocation, {
    read: () => ({
      request: readEnhanceRequest(analysisId, aiComps, aiExpenses),
      layout: readLayout(fields, undefined),
    }),
    answer: async (args, call) => {
      const { request, layout } = args();
      return layout(await ask("enhance", request, call));
    },
  });
}

export function comps(analysisId: Arg, maxRows?: Arg, invocation?: Invocation): Promise<unknown[][]> {
  return free(invocation, {
    read: () => {
      const id = readId(analysisId);
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

export function monthly(analysisId: Arg, invocation?: Invocation): Promise<unknown[][]> {
  return free(invocation, {
    read: () => readId(analysisId),
    answer: async (args, call) => {
      const answer = await storedFullAnswer(args(), call);
      // The answer's notices (SANDBOX, STALE) and warnings travel with every month.
      return monthlyTable(analysisOf(answer), warningTexts(answer));
    },
  });
}

export function whatif(
  analysisId: Arg,
  purchasePrice?: Arg,
  downPaymentPct?: Arg,
  interestRatePct?: Arg,
  mortgageYears?: Arg,
  scenario?: Arg,
  fields?: unknown[][] | null,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => {
      const inputs = accepted(
        readWhatIfArguments({ purchasePrice, downPaymentPct, interestRatePct, mortgageYears, scenario }),
      );
      return { id: readId(analysisId), inputs, layout: readLayout(fields, undefined, whatIfChanges(inputs)) };
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

export function sensitivity(
  analysisId: Arg,
  rowVariable: Arg,
  rowValues: unknown[][],
  columnVariable: Arg,
  columnValues: unknown[][],
  metric: Arg,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => ({
      id: readId(analysisId),
      ...accepted(
        readSensitivityArguments(
          rowVariable,
          rowValues as RangeInput,
          columnVariable,
          columnValues as RangeInput,
          metric,
        ),
      ),
    }),
    answer: async (args, call) => {
      const { id, rows, columns, field } = args();
      const answer = await storedAnswer(id, call);
      const analysis = analysisOf(answer);
      if (!analysis) throw invalidArgument([{ path: "analysisId", message: "holds no analysis" }]);
      const grid = sensitivityGrid(analysis, rows, columns, field, { sandbox: answer.relay.sandbox });
      if (!grid.ok) throw invalidArgument([{ path: "rowVariable", message: grid.message }]);
      return grid.grid;
    },
  });
}

export function maxbid(
  analysisId: Arg,
  metric: Arg,
  target: Arg,
  scenario?: Arg,
  downPaymentPct?: Arg,
  interestRatePct?: Arg,
  mortgageYears?: Arg,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return free(invocation, {
    read: () => ({
      id: readId(analysisId),
      ...accepted(readBidArguments(metric, target)),
      inputs: accepted(readWhatIfArguments({ scenario, downPaymentPct, interestRatePct, mortgageYears })),
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

export function projection(
  analysisId: Arg,
  years: Arg,
  appreciationPct?: Arg,
  revenueGrowthPct?: Arg,
  expenseGrowthPct?: Arg,
  sellingCostPct?: Arg,
  purchasePrice?: Arg,
  downPaymentPct?: Arg,
  interestRatePct?: Arg,
  mortgageYears?: Arg,
  invocation?: Invocation,
): Promise<unknown[][]> {
  const rates = { appreciationPct, revenueGrowthPct, expenseGrowthPct, sellingCostPct };
  const financing = { purchasePrice, downPaymentPct, interestRatePct, mortgageYears };
  return free(invocation, {
    read: () => ({ id: readId(analysisId), inputs: accepted(readProjectionArguments(years, rates, financing)) }),
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

export function card(
  strategy: Arg,
  location: unknown[][],
  values: unknown[][][] | null | undefined,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return billable(invocation, {
    read: () => readCardRequest(strategy, location, values ?? []),
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

function create(
  op: Strategy,
  location: unknown[][],
  positional: Arg[],
  options: unknown[][] | null | undefined,
  fields: unknown[][] | null | undefined,
  invocation: Invocation,
): Promise<unknown[][]> {
  return billable(invocation, {
    read: () => {
      const built = functionRequest(
        op,
        location as RangeInput,
        positional,
        (options ?? undefined) as CellInput | RangeInput | undefined,
      );
      if (!built.ok) throw invalidArgument(built.issues);
      return { request: built.request, layout: readLayout(fields, op) };
    },
    // The request is read by the batcher when the call's slice of a recalculation comes (src/client/batcher.ts).
    answer: async (args, call) => args().layout(await ask(op, () => args().request, call)),
  });
}

/** Both AI flags omitted: run both (src/inputs/billed-calls.ts, which the pane prices a refresh by too). */
function readEnhanceRequest(analysisId: Arg, aiComps: Arg, aiExpenses: Arg): AnyRequest {
  const built = enhanceRequest(analysisId, aiComps, aiExpenses);
  if (!built.ok) throw invalidArgument(built.issues);
  return built.request;
}

function readCardRequest(
  strategy: Arg,
  location: unknown[][],
  args: unknown[][][],
): { strategy: Strategy; request: AnyRequest } {
  const built = cardRequest(strategy, location, args);
  if (!built.ok) throw invalidArgument(built.issues);
  return built;
}

function readId(analysisId: Arg): string {
  return accepted(readAnalysisId(analysisId));
}

/** An argument read by src/inputs, or #VALUE! naming every bad one. */
function accepted<T>(read: Validated<T>): T {
  if (!read.ok) throw invalidArgument(read.issues);
  return read.value;
}

/** An analysis by id: from the session when a formula already has it, else from the relay's store (free, no call to the service). */
async function storedAnswer(id: string, call: Call): Promise<RelayAnswer> {
  const { batcher } = await addinConnection().get();
  return batcher.analysis(id) ?? batcher.rememberAnalysis(await storedFullAnswer(id, call));
}

/** The analysis in a stored answer, for the functions that compute from it. */
function analysisIn(answer: RelayAnswer): Analysis {
  const analysis = analysisOf(answer);
  if (!analysis) throw invalidArgument([{ path: "analysisId", message: "holds no analysis" }]);
  return analysis;
}

async function storedFullAnswer(id: string, call: Call): Promise<RelayAnswer> {
  const { client } = await addinConnection().get();
  return client.analysis(id, { signal: call.signal });
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

function ask(op: Operation, request: RequestSource, call: Call): Promise<SessionAnswer> {
  // The batcher asks the refresh gate when it reads the call: only the requests the pane priced are refreshes.
  const options = { gate: refreshGate, cancelable: call.cancelable };
  // Synchronously when the connection is ready: the call is queued in the tick Excel made it.
  const connection = addinConnection();
  const ready = connection.ready;
  if (ready) return ready.batcher.request(op, request, options);
  // Else once the settings are loaded, unless Excel cancelled the call meanwhile: the batcher hooks
  // a call's cancel only when it gets it, so one cancelled before would be sent and billed.
  return connection.get().then(({ batcher }) => {
    if (call.cancelled) throw cancelled();
    return batcher.request(op, request, options);
  });
}
