import { STRATEGIES, Strategy } from "../contract";
import { ScreenOptions, UsageError } from "./args";
import { EARLIER_REPORT_NAMES, SCREENED_WITH, SUMMARY_SHEET, firstRowOf, isReportSheet } from "./report-sheets";
import { InputTable } from "./table-reader";

/*
 * How a screened workbook was screened travels with its results: the STR Summary sheet records the
 * settings that decide what is sent (the strategy, the decimal mark; the result columns are the
 * block's own headers), and a refresh of that workbook uses them. A different --strategy would
 * re-screen every row as new, billed analyses, so it needs --change-strategy.
 */

/** The settings of the run that screened a workbook, as its STR Summary sheet records them. */
export interface EarlierRun {
  strategy: Strategy | undefined;
  decimal: "comma" | "point" | undefined;
}

/** What the table's workbook says of the run that screened it; undefined when it was not screened by str-screen. */
export function earlierRun(table: InputTable): EarlierRun | undefined {
  const book = table.workbook;
  if (!book) return undefined;
  const legacy = Object.entries(EARLIER_REPORT_NAMES).find(([, kind]) => kind === SUMMARY_SHEET)?.[0];
  const sheet = [book.getWorksheet(SUMMARY_SHEET), legacy ? book.getWorksheet(legacy) : undefined].find(
    (s) => s && isReportSheet(SUMMARY_SHEET, firstRowOf(s)),
  );
  if (!sheet) return undefined;
  const rows = new Map<string, unknown>();
  sheet.eachRow((row) => {
    const [label, value] = Array.isArray(row.values) ? row.values.slice(1) : [];
    if (typeof label === "string") rows.set(label, value);
  });
  const args = parseArgList(rows.get(SCREENED_WITH));
  if (args) {
    const at = args.indexOf("--strategy");
    const strategy = at >= 0 ? asStrategy(args[at + 1]) : undefined;
    return {
      strategy,
      decimal: args.includes("--decimal-comma") ? "comma" : args.includes("--decimal-point") ? "point" : undefined,
    };
  }
  // Written before the settings row: "owned", or "owned unless the row's strategy column says otherwise".
  const text = rows.get("Strategy");
  return { strategy: typeof text === "string" ? asStrategy(text.split(" ")[0]) : undefined, decimal: undefined };
}

/** The options a run uses on a screened workbook: the earlier run's, unless given; a different strategy only when confirmed. */
export function withEarlierRun(options: ScreenOptions, earlier: EarlierRun | undefined): ScreenOptions {
  if (!earlier) return options;
  const kept = { ...options, decimal: options.decimal ?? earlier.decimal };
  if (!earlier.strategy) return kept;
  if (!options.strategyGiven) return { ...kept, strategy: earlier.strategy };
  if (options.strategy !== earlier.strategy && !options.changeStrategy) {
    throw new UsageError(
      `this workbook was screened with --strategy ${earlier.strategy}; screening it as ${options.strategy} creates new analyses for every row (billed): add --change-strategy to confirm, or leave --strategy out to refresh it as ${earlier.strategy}`,
    );
  }
  return kept;
}

function parseArgList(value: unknown): string[] | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === "string") ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function asStrategy(text: string | undefined): Strategy | undefined {
  return STRATEGIES.find((s) => s === text?.trim().toLowerCase());
}
