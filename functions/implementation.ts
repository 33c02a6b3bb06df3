import { AnyRequest, FieldIssue, Operation, RelayAnswer, Strategy, WhatIfInputs, findField, idField, validateRequest, whatIf } from "../src/contract";
import { RelayCallError, RequestSource, addinConnection, refreshGate } from "../src/client";
import { CellInput, POSITIONAL_ARGUMENTS, RangeInput, STRATEGY_NAMES, WHATIF_VARIABLES, findWhatIfVariable, functionRequest, readBoolean, readStrategy, readValueList, single } from "../src/inputs";
import {
  FormattedNumberSupport,
  Grid,
  HostSupport,
  PLAIN_HOST,
  SheetError,
  analysisCard,
  analysisEntity,
  analysisOf,
  comparablesTable,
  fieldsRow,
  formattedNumberSupport,
  invalidArgument,
  parseFieldList,
  readMaxRows,
  sensitivityGrid,
  sheetError,
  toCellValues,
} from "../src/sheet";

/**
 * What each STR.* function does, kept thin: read the arguments (src/inputs), ask the relay
 * (src/client), lay the answer out (src/sheet). Bad arguments fail at once with #VALUE! naming the
 * argument and its rule, and nothing is sent. Relay problems are #N/A with what to do. Every call
 * settles: the client has time limits, and a deleted cell cancels its call.
 */

type Invocation = CustomFunctions.CancelableInvocation | undefined;
type Arg = unknown;

export function buy(location: unknown[][], purchasePrice: Arg, bedrooms: Arg, bathrooms: Arg, guests: Arg, options?: unknown[][] | null, fields?: unknown[][] | null, invocation?: Invocation): Promise<unknown[][]> {
  return create("buy", location, [purchasePrice, bedrooms, bathrooms, guests], options, fields, invocation);
}

export function arb(location: unknown[][], monthlyRent: Arg, bedrooms: Arg, bathrooms: Arg, guests: Arg, options?: unknown[][] | null, fields?: unknown[][] | null, invocation?: Invocation): Promise<unknown[][]> {
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
  return create("owned", location, [purchasePrice, downPaymentPct, interestRatePct, mortgageYears, yearsRemaining, bedrooms, bathrooms, guests], options, fields, invocation);
}

export function cohost(location: unknown[][], bedrooms: Arg, bathrooms: Arg, guests: Arg, commissionPct?: Arg, options?: unknown[][] | null, fields?: unknown[][] | null, invocation?: Invocation): Promise<unknown[][]> {
  return create("cohost", location, [bedrooms, bathrooms, guests, commissionPct], options, fields, invocation);
}

export async function enhance(analysisId: Arg, aiComps?: Arg, aiExpenses?: Arg, fields?: unknown[][] | null, invocation?: Invocation): Promise<unknown[][]> {
  return settle(async () => {
    const comps = readBoolean(single(aiComps));
    const expenses = readBoolean(single(aiExpenses));
    const problems = [
      ...(comps.ok ? [] : [{ path: "aiComps", message: `must be ${comps.message}` }]),
      ...(expenses.ok ? [] : [{ path: "aiExpenses", message: `must be ${expenses.message}` }]),
    ];
    if (problems.length > 0) throw invalidArgument(problems);
    // Both omitted: run both. One given: run what it says, and the other only if it says TRUE.
    const neither = comps.ok && expenses.ok && comps.value === undefined && expenses.value === undefined;
    const request = {
      analysisId: idText(analysisId),
      addAIComps: neither || (comps.ok && comps.value === true),
      addAIExpenseEstimates: neither || (expenses.ok && expenses.value === true),
    };
    const valid = validateRequest("enhance", request);
    if (!valid.ok) throw invalidArgument(valid.issues.map((i) => ({ path: i.path === "addAIComps" ? "aiComps" : i.path, message: i.message })));
    const layout = readLayout(fields, undefined);
    const answer = await ask("enhance", valid.value, invocation);
    return layout(answer);
  });
}

export async function comps(analysisId: Arg, maxRows?: Arg, invocation?: Invocation): Promise<unknown[][]> {
  return settle(async () => {
    const id = readId(analysisId);
    // A bad maxRows fails before anything is asked of the relay.
    const cap = readMaxRows(single(maxRows) ?? undefined);
    if (!cap.ok) throw invalidArgument(cap.message);
    const answer = await storedFullAnswer(id, invocation);
    const table = comparablesTable(analysisOf(answer), single(maxRows) ?? undefined);
    if (!table.ok) throw invalidArgument(table.message);
    return table.grid;
  });
}

export async function whatif(
  analysisId: Arg,
  purchasePrice?: Arg,
  downPaymentPct?: Arg,
  interestRatePct?: Arg,
  mortgageYears?: Arg,
  scenario?: Arg,
  fields?: unknown[][] | null,
  invocation?: Invocation,
): Promise<unknown[][]> {
  return settle(async () => {
    const id = readId(analysisId);
    const inputs: WhatIfInputs = {};
    const problems: FieldIssue[] = [];
    const given: [string, Arg][] = [["purchasePrice", purchasePrice], ["downPaymentPct", downPaymentPct], ["interestRatePct", interestRatePct], ["mortgageYears", mortgageYears], ["scenario", scenario]];
    for (const [name, value] of given) {
      const variable = findWhatIfVariable(name);
      const read = variable?.read(single(value));
      if (!variable || !read) continue;
      if (!read.ok) problems.push({ path: name, message: `must be ${read.message}` });
      else if (read.value !== undefined) variable.apply(inputs, read.value);
    }
    if (problems.length > 0) throw invalidArgument(problems);
    const layout = readLayout(fields, undefined);
    const answer = await storedAnswer(id, invocation);
    const analysis = analysisOf(answer);
    const result = analysis ? whatIf(analysis, inputs) : { ok: false as const, message: "the answer holds no analysis" };
    if (!result.ok) throw invalidArgument([{ path: "analysisId", message: `cannot be recomputed: ${result.message}` }]);
    // A what-if is computed here from a stored analysis: nothing was fetched or billed for it.
    return layout({ ...answer, data: result.analysis, relay: { ...answer.relay, cached: true, costUSD: 0 } });
  });
}

export async function sensitivity(analysisId: Arg, rowVariable: Arg, rowValues: unknown[][], columnVariable: Arg, columnValues: unknown[][], metric: Arg, invocation?: Invocation): Promise<unknown[][]> {
  return settle(async () => {
    const id = readId(analysisId);
    const problems: FieldIssue[] = [];
    const names = WHATIF_VARIABLES.map((v) => v.name).join(", ");
    const axis = (argument: string, variableArg: Arg, valuesArg: unknown[][], valuesName: string) => {
      const variable = findWhatIfVariable(single(variableArg));
      if (!variable) {
        problems.push({ path: argument, message: `must be a what-if variable (${names}); got ${JSON.stringify(String(single(variableArg) ?? ""))}` });
        return undefined;
      }
      const values = readValueList(valuesArg as readonly (readonly CellInput[])[], variable);
      if (!values.ok) {
        problems.push({ path: valuesName, message: values.message });
        return undefined;
      }
      return { variable, values: values.values };
    };
    const rows = axis("rowVariable", rowVariable, rowValues, "rowValues");
    const columns = axis("columnVariable", columnVariable, columnValues, "columnValues");
    const field = findField(String(single(metric) ?? ""));
    if (!field || (field.unit !== "usd" && field.unit !== "percent" && field.unit !== "fraction" && field.unit !== "ratio")) {
      problems.push({ path: "metric", message: `must be a numeric field such as yearOneCashFlowUSD, yearOneCashOnCashPercentage or DSCR; got ${JSON.stringify(String(single(metric) ?? ""))}` });
    }
    if (problems.length > 0 || !rows || !columns || !field) throw invalidArgument(problems);
    // The same variable down and across is the arguments' fault: refused before asking the relay.
    if (rows.variable.name === columns.variable.name) throw invalidArgument(`rowVariable and columnVariable are both ${rows.variable.name}: choose two different variables`);
    const analysis = analysisOf(await storedAnswer(id, invocation));
    if (!analysis) throw invalidArgument([{ path: "analysisId", message: "holds no analysis" }]);
    const grid = sensitivityGrid(analysis, rows, columns, field);
    if (!grid.ok) throw invalidArgument([{ path: "rowVariable", message: grid.message }]);
    return grid.grid;
  });
}

export async function card(strategy: Arg, location: unknown[][], values: unknown[][][] | null | undefined, invocation?: Invocation): Promise<unknown[][]> {
  try {
    const op = readStrategy(single(strategy));
    if (!op.ok || op.value === undefined || op.value === "enhance") throw invalidArgument([{ path: "strategy", message: `must be one of ${STRATEGY_NAMES.join(", ")}` }]);
    const s = op.value as Strategy;
    const args = values ?? [];
    const count = POSITIONAL_ARGUMENTS[s].length;
    if (args.length > count + 1) throw invalidArgument([{ path: "values", message: `${s} takes ${count} values and then options; got ${args.length}` }]);
    const built = functionRequest(s, location as RangeInput, args.slice(0, count), (args[count] ?? undefined) as RangeInput | undefined);
    if (!built.ok) throw invalidArgument(built.issues);
    if (invocation?.isInValuePreview) return [["STR: the analysis runs when you press Enter."]];
    const metrics = await ask(s, built.request, invocation);
    const support = hostSupport();
    // Data types need ExcelApi 1.16; elsewhere the card spills as STR.BUY's does.
    if (support.formattedNumbers === "none") return toCellValues(analysisCard(metrics, { strategy: s }), support);
    // The entity shows comparables, which batched answers leave out: read them from the relay's store (free).
    const id = analysisOf(metrics)?._id;
    const full = typeof id === "string" ? await storedFullAnswer(id, invocation).catch(() => metrics) : metrics;
    const entity = analysisEntity(full, support, { strategy: s });
    // A 1×1 result: the entity in its cell (the card spill is the fallback when there is none).
    return entity ? [[entity]] : toCellValues(analysisCard(metrics, { strategy: s }), support);
  } catch (error) {
    throw excelErrorOf(error);
  }
}

function readId(analysisId: Arg): string {
  const id = idText(analysisId);
  const valid = validateRequest("enhance", { analysisId: id, addAIComps: true });
  if (!valid.ok) throw invalidArgument(valid.issues.filter((i) => i.path === "analysisId"));
  return id;
}

/**
 * The analysis id argument as text (an id of digits may arrive as a number). TRUE/FALSE, NaN or ∞
 * is no id: refused here, or it would be sent as "true" or "NaN" and cost a call.
 */
function idText(analysisId: Arg): string {
  const value = single(analysisId);
  if (typeof value === "boolean" || (typeof value === "number" && !Number.isFinite(value))) {
    throw invalidArgument([{ path: "analysisId", message: `must be ${idField().description}; got ${typeof value === "boolean" ? String(value).toUpperCase() : String(value)}` }]);
  }
  return String(value ?? "").trim();
}

/** An analysis by id: from the session when a formula already has it, else from the relay's store (free, no call to the service). */
async function storedAnswer(id: string, invocation: Invocation): Promise<RelayAnswer> {
  const { batcher } = await addinConnection().get();
  return batcher.analysis(id) ?? batcher.rememberAnalysis(await storedFullAnswer(id, invocation));
}

async function storedFullAnswer(id: string, invocation: Invocation): Promise<RelayAnswer> {
  const controller = cancellation(invocation);
  const { client } = await addinConnection().get();
  return client.analysis(id, { signal: controller.signal });
}

function create(op: Strategy, location: unknown[][], positional: Arg[], options: unknown[][] | null | undefined, fields: unknown[][] | null | undefined, invocation: Invocation): Promise<unknown[][]> {
  // Set by `read`, which always runs before an answer can arrive: the batcher reads a call before it sends it.
  let layout!: Layout;
  // Reads the arguments into a request, and the layout the answer will take; bad ones throw, so nothing is sent.
  const read = (): AnyRequest => {
    const built = functionRequest(op, location as RangeInput, positional, (options ?? undefined) as CellInput | RangeInput | undefined);
    if (!built.ok) throw invalidArgument(built.issues);
    layout = readLayout(fields, op);
    return built.request;
  };
  // Excel evaluates a formula while it is being typed to preview its value: never bill for that.
  if (invocation?.isInValuePreview) {
    return settle(async () => {
      read();
      return [["STR: the analysis runs when you press Enter."]];
    });
  }
  // The batcher reads the call when its slice comes (src/client/batcher.ts), so the first cells'
  // request is on its way while the rest of a recalculation is still being read. One promise chain
  // rather than async functions: a recalculation keeps a thousand calls waiting at once, and each
  // async layer would keep a promise and a suspended frame more for every one of them.
  try {
    return ask(op, read, invocation).then((answer) => excelValues(layout, answer), throwExcelError);
  } catch (error) {
    return Promise.reject(excelErrorOf(error));
  }
}

type Layout = (answer: RelayAnswer) => Grid;

/** `fields` → a layout: one screening row, or the whole card. Bad field names fail before anything is sent. */
function readLayout(fields: unknown[][] | null | undefined, strategy: Strategy | undefined): Layout {
  const given = fields !== null && fields !== undefined && fields.some((row) => row.some((c) => c !== null && c !== undefined && c !== ""));
  if (!given) return (answer) => analysisCard(answer, strategy ? { strategy } : {});
  const parsed = parseFieldList(fields, strategy ? { strategy } : {});
  if (!parsed.ok) throw invalidArgument([{ path: "fields", message: parsed.message.replace(/^fields:\s*/, "") }]);
  return (answer) => [fieldsRow(answer, parsed.fields)];
}

function ask(op: Operation, request: RequestSource, invocation: Invocation): Promise<RelayAnswer> {
  // Excel cancels a call when its cell is deleted: the batcher hooks the invocation for that.
  const options = { refresh: refreshGate.admits(), cancelable: invocation };
  // Synchronously when the connection is ready: the call is queued in the tick Excel made it.
  const connection = addinConnection();
  const ready = connection.ready;
  if (ready) return ready.batcher.request(op, request, options);
  return connection.get().then(({ batcher }) => batcher.request(op, request, options));
}

/** Excel cancels a call when its cell is deleted or recalculated: stop waiting for it. */
function cancellation(invocation: Invocation): AbortController {
  const controller = new AbortController();
  if (invocation) invocation.onCanceled = () => controller.abort(new RelayCallError("STR_CANCELLED", "Cancelled."));
  return controller;
}

/** An answer laid out as Excel values; a failure is an Excel error with its message. */
function excelValues(layout: Layout, answer: RelayAnswer): unknown[][] {
  try {
    return toCellValues(layout(answer), hostSupport());
  } catch (error) {
    throw excelErrorOf(error);
  }
}

function throwExcelError(error: unknown): never {
  throw excelErrorOf(error);
}

/** Runs a function body; a grid becomes Excel values, any failure an Excel error with its message. */
async function settle(body: () => Promise<Grid | unknown[][]>): Promise<unknown[][]> {
  try {
    const grid = await body();
    return isGrid(grid) ? toCellValues(grid, hostSupport()) : grid;
  } catch (error) {
    throw excelErrorOf(error);
  }
}

function excelErrorOf(error: unknown): CustomFunctions.Error {
  return toExcelError(isSheetError(error) ? error : sheetError(error));
}

function isGrid(value: Grid | unknown[][]): value is Grid {
  return value.every((row) => row.every((c) => typeof c === "object" && c !== null && "value" in c));
}

function isSheetError(value: unknown): value is SheetError {
  return typeof value === "object" && value !== null && "kind" in value && "code" in value && "detail" in value;
}

function toExcelError(error: SheetError): CustomFunctions.Error {
  const code = error.kind === "value" ? CustomFunctions.ErrorCode.invalidValue : CustomFunctions.ErrorCode.notAvailable;
  return new CustomFunctions.Error(code, error.message);
}

let support: HostSupport | undefined;

/** Whether this Excel shows formatted numbers from functions (ExcelApi 1.16+), asked once. */
function hostSupport(): HostSupport {
  if (support) return support;
  const requirements = typeof Office === "undefined" ? undefined : Office.context?.requirements;
  const level: FormattedNumberSupport | undefined = requirements ? formattedNumberSupport((name, version) => requirements.isSetSupported(name, version)) : undefined;
  support = level ? { formattedNumbers: level } : PLAIN_HOST;
  return support;
}
