import path from "node:path";
import { ParseArgsConfig, parseArgs as tokenize } from "node:util";
import { z } from "zod";
import { FieldInfo, MAX_COMPARABLES, STRATEGIES, Strategy } from "../contract";
import { MaxBidRule, parseMaxBidRule } from "../model";
import { EnhanceSteps, parseEnhanceSteps, readAgeDays } from "../screening";
import { parseFieldList } from "../sheet";
import { OUTPUT_FORMATS, OutputFormat, outputFormatOf } from "./output-format";

/*
 * The command line of `str-screen`, parsed once. Every usage error names the option, the rule and
 * what was given ("--strategy must be one of buy, arb, owned, cohost; got \"flip\""), and exits 2.
 */

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * Comparables per property by default: the nearest five, an appraiser's comp set, show how an
 * estimate was made while the sheet stays a size that Excel, an in-place refresh (which holds the
 * workbook in memory) and the end of a run (which writes it) handle for thousands of rows.
 * STR.COMPS(id), the report link or --comps 50 show all of them.
 */
export const DEFAULT_COMPS = 5;

export const HELP = `Usage: str-screen IN.csv|IN.xlsx --out OUT.xlsx|OUT.csv|OUT.json [options]

Screens every row of a portfolio through the STR relay and writes the results beside the input
columns, with STR Comparables, STR Warnings and STR Summary sheets. Rows already analysed come from the relay's
cache and cost nothing; --dry-run says what a run would cost before it spends anything.

Options:
  -o, --out FILE      where the results go: .xlsx (a workbook with the report sheets), .csv or .json
                      (the screened sheet's columns and rows, for scripts); the input workbook itself
                      refreshes it in place, keeping its other sheets (not needed with --dry-run)
  --force             replace OUT when it exists (not needed to refresh the input in place)
  --strategy NAME     buy, arb, owned or cohost, for rows without a strategy column (default buy)
  --refresh           fetch every row again, bypassing the cache (billed)
  --resend-unknown    send again only the rows whose earlier call has an unknown outcome (the dry
                      run lists them; billed if the service creates them); the rest as usual
  --refresh-older-than DAYS
                      on a screened workbook, fetch again (billed) only the rows whose analysis was
                      fetched more than DAYS days ago; the others come from the cache, free
  --max-bid RULE      add a "Max bid" column: the highest price at which a metric still meets a
                      target: "cash-on-cash>=8%", "cap-rate>=6%", "dscr>=1.25" or "cash-flow>=5000 USD"
                      (buy and owned rows; computed from each analysis, free)
  --enhance STEPS     on a screened workbook, run AI steps on the rows that have an analysis id:
                      comps, expenses or comps,expenses (0.10 USD a step that completes;
                      --dry-run prices it)
  --dry-run           print rows, cached, to create and the estimated cost; send and spend nothing
  --sheet NAME        the sheet to screen in an .xlsx input (default: the first visible sheet)
  --fields LIST       result columns, e.g. "revenue.p50, yearOneCashFlowUSD, Cap rate"
                      (default: the usual screening figures for the strategy)
  --comps N           comparables per property in the STR Comparables sheet, 0 to ${MAX_COMPARABLES} (default ${DEFAULT_COMPS})
  --decimal-comma     numbers typed as text use "," as the decimal mark and "." for thousands
                      (450.000 is 450,000; the default for a ;-separated CSV)
  --decimal-point     numbers typed as text use "." as the decimal mark and "," for thousands
                      (the default for a comma-separated CSV and for .xlsx)
  --accept-unusual    also send rows whose values are outside the plausible ranges (see --dry-run)
  --change-strategy   confirm a --strategy other than the one a screened workbook was screened with
  -h, --help          this text
  --version           the version, and exit

Relay: STR_RELAY_URL and STR_RELAY_TOKEN name a running relay (str-relay). With neither set,
str-screen runs its own relay on the embedded sandbox (simulated data) and keeps its cache under
RELAY_DATA_DIR (default: the user's data directory), so a second run is free.

Exit codes: 0 every row screened; 1 some rows failed (marked in the output), the run was stopped or
OUT could not be written (with --dry-run: some rows are invalid, unusual or of unknown outcome, though
nothing was sent); 2 usage or configuration error (nothing was sent); 3 str-screen itself failed
(a bug: please report it with the message).

Examples:
  str-screen deals.csv --dry-run                         what a run would cost, sending nothing
  str-screen deals.csv -o screened.xlsx                  screen into a new workbook
  str-screen deals.xlsx -o deals.xlsx                    refresh a screened workbook in place
  str-screen deals.csv -o results.json --force           for a script: replace last night's results
  str-screen deals.csv -o out.xlsx --strategy arb --fields "revenue.p50, yearOneCashFlowUSD"
  str-screen deals.csv -o deals.xlsx --max-bid "cash-on-cash>=8%"   each row's maximum offer
  str-screen deals.xlsx -o deals.xlsx --refresh-older-than 30        re-buy analyses over 30 days old
  str-screen deals.xlsx -o deals.xlsx --enhance comps,expenses       AI steps on the screened rows

Every option, column name and exit code: docs/cli.md.`;

export interface ScreenOptions {
  input: string;
  out: string | undefined;
  /** What --out writes, by its extension. */
  outFormat: OutputFormat;
  /** --force: an existing OUT (not the input) may be replaced. */
  force: boolean;
  strategy: Strategy;
  /** True when --strategy was given (a field list is then checked against it). */
  strategyGiven: boolean;
  refresh: boolean;
  /** --resend-unknown: rows whose earlier call has an unknown outcome are sent again (a billed refresh of those rows alone). */
  resendUnknown: boolean;
  /** --refresh-older-than DAYS: only rows fetched more than DAYS days ago are fetched again. */
  refreshOlderThan: number | undefined;
  /** --max-bid RULE: the max-bid column's rule. */
  maxBid: MaxBidRule | undefined;
  /** --enhance STEPS: the AI steps run on the screened rows' analyses, instead of screening them. */
  enhance: EnhanceSteps | undefined;
  dryRun: boolean;
  sheet: string | undefined;
  /** Undefined: the default fields for the table's strategies. */
  fields: readonly FieldInfo[] | undefined;
  fieldsText: string | undefined;
  comps: number;
  /** --decimal-comma or --decimal-point; undefined: the table's own convention. */
  decimal: "comma" | "point" | undefined;
  /** --accept-unusual: rows outside the plausible ranges are sent too. */
  acceptUnusual: boolean;
  /** --change-strategy: a screened workbook may be screened with another strategy than before. */
  changeStrategy: boolean;
  help: boolean;
  version: boolean;
}

/** Every option, without its dashes (docs/cli.md lists each; a test holds it to this list). */
export const VALUE_OPTIONS = [
  "out",
  "strategy",
  "sheet",
  "fields",
  "comps",
  "refresh-older-than",
  "max-bid",
  "enhance",
] as const;
export const FLAG_OPTIONS = [
  "force",
  "refresh",
  "resend-unknown",
  "dry-run",
  "decimal-comma",
  "decimal-point",
  "accept-unusual",
  "change-strategy",
  "help",
  "version",
] as const;
/** Single-letter forms. */
export const SHORT_OPTIONS: Readonly<Record<string, OptionName>> = { "-o": "out", "-h": "help" };
type OptionName = (typeof VALUE_OPTIONS)[number] | (typeof FLAG_OPTIONS)[number];
const ALL_OPTIONS: readonly OptionName[] = [...VALUE_OPTIONS, ...FLAG_OPTIONS];
const isValueOption = (name: string): name is (typeof VALUE_OPTIONS)[number] =>
  (VALUE_OPTIONS as readonly string[]).includes(name);
const isFlagOption = (name: string): name is (typeof FLAG_OPTIONS)[number] =>
  (FLAG_OPTIONS as readonly string[]).includes(name);

const got = (input: unknown) => (input === undefined ? "nothing" : JSON.stringify(input));

const Options = z.object({
  input: z
    .string({ error: "IN must be given: the CSV or XLSX file to screen" })
    .refine((f) => /\.(csv|tsv|txt|xlsx)$/i.test(f), {
      error: (i) => `IN must be a .csv or .xlsx file (save .xls and .ods as .xlsx first); got ${got(i.input)}`,
    }),
  out: z
    .string()
    .refine((f) => outputFormatOf(f) !== undefined, {
      error: (i) => `--out must name an ${OUTPUT_FORMATS.map((f) => `.${f}`).join(", ")} file; got ${got(i.input)}`,
    })
    .optional(),
  strategy: z.preprocess(
    (v) =>
      typeof v === "string"
        ? v
            .trim()
            .toLowerCase()
            .replace(/[^a-z]/g, "")
        : v,
    z
      .enum(STRATEGIES, { error: (i) => `--strategy must be one of ${STRATEGIES.join(", ")}; got ${got(i.input)}` })
      .optional(),
  ),
  sheet: z.string().trim().min(1, { error: '--sheet must name a sheet; got ""' }).optional(),
  fields: z.string().optional(),
  comps: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return DEFAULT_COMPS;
      const n = Number(v.trim());
      if (v.trim() === "" || !Number.isInteger(n) || n < 0 || n > MAX_COMPARABLES) {
        ctx.addIssue({
          code: "custom",
          message: `--comps must be a whole number from 0 to ${MAX_COMPARABLES}; got ${got(v)}`,
        });
        return z.NEVER;
      }
      return n;
    }),
  refresh: z.boolean(),
  dryRun: z.boolean(),
  help: z.boolean(),
});

/** Parses argv (without node and the script). Throws UsageError naming the option and its rule. */
export function parseArgs(argv: readonly string[]): ScreenOptions {
  const early = helpOrVersion(argv);
  if (early) return early;
  const line = splitCommandLine(argv);
  const o = readCheckedOptions(line);
  const { flags } = line;
  return {
    input: o.input,
    out: o.out,
    outFormat: (o.out && outputFormatOf(o.out)) || "xlsx",
    force: flags.has("force"),
    strategy: o.strategy ?? "buy",
    strategyGiven: o.strategy !== undefined,
    refresh: o.refresh,
    resendUnknown: resendUnknownOf(flags, o.refresh),
    ...readDecisionOptions(line.values, o.refresh),
    dryRun: o.dryRun,
    sheet: o.sheet,
    fields: readFields(o.fields, o.strategy),
    fieldsText: o.fields,
    comps: o.comps,
    decimal: flags.has("decimal-comma") ? "comma" : flags.has("decimal-point") ? "point" : undefined,
    acceptUnusual: flags.has("accept-unusual"),
    changeStrategy: flags.has("change-strategy"),
    help: false,
    version: false,
  };
}

/** Help and version win over anything else on the line (before a "--"), even a mistake. */
function helpOrVersion(argv: readonly string[]): ScreenOptions | undefined {
  const end = argv.indexOf("--");
  const options = end < 0 ? argv : argv.slice(0, end);
  if (options.some((a) => a === "-h" || a === "--help")) return { ...emptyOptions(), help: true };
  if (options.includes("--version")) return { ...emptyOptions(), version: true };
  return undefined;
}

/** The command line split into option values, flags and the input file, each word checked for its form only. */
interface CommandLine {
  values: Partial<Record<OptionName, string>>;
  flags: Set<OptionName>;
  input: string | undefined;
}

/**
 * How node:util's parseArgs splits the words: a value option takes the word after it (or what
 * follows its "="), "--" ends the options. Not strict: strict mode refuses a value that starts with
 * "-" ("--comps -1", "--sheet -2024", which the options' own rules judge here), takes "-ofile" for
 * "-o file", and its errors name the option only in their prose. readOption checks each token.
 */
const TOKENS = {
  options: Object.fromEntries(
    ALL_OPTIONS.map((name) => {
      const short = Object.keys(SHORT_OPTIONS).find((s) => SHORT_OPTIONS[s] === name);
      return [name, { type: isValueOption(name) ? "string" : "boolean", ...(short ? { short: short.slice(1) } : {}) }];
    }),
  ) as NonNullable<ParseArgsConfig["options"]>,
  strict: false,
  allowPositionals: true,
  tokens: true,
} satisfies ParseArgsConfig;

function splitCommandLine(argv: readonly string[]): CommandLine {
  const line: CommandLine = { values: {}, flags: new Set(), input: undefined };
  const positional: string[] = [];
  for (const token of tokenize({ ...TOKENS, args: [...argv] }).tokens) {
    if (token.kind === "positional") positional.push(token.value);
    else if (token.kind === "option") readOption(token, argv[token.index] as string, line);
  }
  if (positional.length > 1)
    throw new UsageError(
      `one input file at a time; got ${positional.length}: ${positional.map((p) => JSON.stringify(p)).join(", ")}`,
    );
  return { ...line, input: positional[0] };
}

type OptionToken = Extract<ReturnType<typeof tokenize<typeof TOKENS>>["tokens"][number], { kind: "option" }>;

/** Records one option token ("--name", "--name=value", "--name value", "-o value") in `line`; `word` is the argument it came from. */
function readOption(token: OptionToken, word: string, line: CommandLine): void {
  // A short option stands alone: "-o FILE", "-h"; never grouped ("-ho") or with its value attached ("-ofile").
  if (!token.rawName.startsWith("--") && (word !== token.rawName || !Object.hasOwn(SHORT_OPTIONS, word)))
    throw new UsageError(`unknown option ${word}; options: ${optionList()}`);
  const name = token.name;
  if (isFlagOption(name)) {
    if (token.inlineValue) throw new UsageError(`--${name} takes no value; got ${JSON.stringify(token.value)}`);
    line.flags.add(name);
    return;
  }
  if (!isValueOption(name)) {
    const close = ALL_OPTIONS.find((o) => o.replace(/-/g, "") === name.toLowerCase().replace(/[-_]/g, ""));
    throw new UsageError(
      `unknown option --${name}${close ? ` (did you mean --${close}?)` : `; options: ${optionList()}`}`,
    );
  }
  if (name in line.values) throw new UsageError(`--${name} is given twice`);
  // "--out --refresh" is a forgotten value, not a file named "--refresh"; "--comps -1" is a value.
  const value = token.value;
  if (value === undefined || (!token.inlineValue && value.startsWith("--") && value.length > 2))
    throw new UsageError(`--${name} needs a value`);
  line.values[name] = value;
}

/** IN, --out, --strategy, --sheet, --fields (as text), --comps and the flags they depend on, each checked, and the combinations that cannot be. */
function readCheckedOptions(line: CommandLine): z.output<typeof Options> {
  const { values, flags } = line;
  const parsed = Options.safeParse({
    input: line.input,
    out: values.out,
    strategy: values.strategy,
    sheet: values.sheet,
    fields: values.fields,
    comps: values.comps,
    refresh: flags.has("refresh"),
    dryRun: flags.has("dry-run"),
    help: false,
  });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join("; "));
  const o = parsed.data;
  if (!o.out && !o.dryRun)
    throw new UsageError(
      "--out must be given: the .xlsx, .csv or .json file to write (or use --dry-run to only estimate)",
    );
  if (flags.has("decimal-comma") && flags.has("decimal-point"))
    throw new UsageError("--decimal-comma and --decimal-point cannot both be given: a table has one decimal mark");
  if (o.sheet !== undefined && !/\.xlsx$/i.test(o.input))
    throw new UsageError(
      `--sheet applies to .xlsx input only; ${JSON.stringify(path.basename(o.input))} is a CSV file`,
    );
  return o;
}

/** --fields, checked against --strategy when that is given; undefined: the strategy's default fields. */
function readFields(text: string | undefined, strategy: Strategy | undefined): readonly FieldInfo[] | undefined {
  if (text === undefined) return undefined;
  const list = parseFieldList(text, strategy ? { strategy } : {});
  if (!list.ok) throw new UsageError(`--${list.message}`);
  return list.fields;
}

/** --refresh-older-than, --max-bid and --enhance, each checked, and the combinations that contradict each other refused. */
function readDecisionOptions(
  values: Partial<Record<OptionName, string>>,
  refresh: boolean,
): Pick<ScreenOptions, "refreshOlderThan" | "maxBid" | "enhance"> {
  let refreshOlderThan: number | undefined;
  if (values["refresh-older-than"] !== undefined) {
    const days = readAgeDays(values["refresh-older-than"]);
    if (!days.ok) throw new UsageError(`--refresh-older-than ${days.message}`);
    refreshOlderThan = days.days;
  }
  let maxBid: MaxBidRule | undefined;
  if (values["max-bid"] !== undefined) {
    const rule = parseMaxBidRule(values["max-bid"]);
    if (!rule.ok) throw new UsageError(`--max-bid: ${rule.message}`);
    maxBid = rule.rule;
  }
  let enhance: EnhanceSteps | undefined;
  if (values.enhance !== undefined) {
    const steps = parseEnhanceSteps(values.enhance);
    if (!steps.ok) throw new UsageError(`--enhance ${steps.message}`);
    enhance = steps.steps;
  }
  if (refresh && refreshOlderThan !== undefined)
    throw new UsageError(
      "--refresh and --refresh-older-than cannot both be given: --refresh fetches every row again, --refresh-older-than only the aged ones",
    );
  if (enhance && (refresh || refreshOlderThan !== undefined))
    throw new UsageError(
      `--enhance cannot be given with ${refresh ? "--refresh" : "--refresh-older-than"}: an enhancement adds AI steps to the analyses the workbook holds; refresh them in a run of their own first`,
    );
  return { refreshOlderThan, maxBid, enhance };
}

function optionList(): string {
  return ALL_OPTIONS.map((o) => `--${o}`).join(", ");
}

function emptyOptions(): ScreenOptions {
  return {
    input: "",
    out: undefined,
    outFormat: "xlsx",
    force: false,
    strategy: "buy",
    strategyGiven: false,
    refresh: false,
    resendUnknown: false,
    refreshOlderThan: undefined,
    maxBid: undefined,
    enhance: undefined,
    dryRun: false,
    sheet: undefined,
    fields: undefined,
    fieldsText: undefined,
    comps: DEFAULT_COMPS,
    decimal: undefined,
    acceptUnusual: false,
    changeStrategy: false,
    help: false,
    version: false,
  };
}

/** --resend-unknown, refused beside --refresh, which already sends every row again. */
function resendUnknownOf(flags: ReadonlySet<string>, refresh: boolean): boolean {
  if (!flags.has("resend-unknown")) return false;
  if (refresh)
    throw new UsageError(
      "--resend-unknown cannot be given with --refresh: --refresh already sends every row again; --resend-unknown only the rows whose outcome is unknown",
    );
  return true;
}
