import path from "node:path";
import { RelayCallError } from "../client";
import { INPUT_FIELDS, isBlank } from "../inputs";
import { RELAY_VERSION } from "../relay";
import { describeIssues } from "../contract";
import {
  PlannedRow,
  RowOutcome,
  ScreeningCounts,
  ScreeningEstimate,
  estimateScreening,
  notEnhancedOf,
  notEnhancedCells,
  refusedRows,
  screenRows,
  storedOutcome,
  unusualRows,
} from "../screening";
import { columnName, isInBlock } from "../sheet";
import { HELP, ScreenOptions, UsageError, parseArgs } from "./args";
import { earlierCells, keptOutcome, withDecisions } from "./decisions";
import { earlierRun, withEarlierRun } from "./earlier-run";
import { LocalReports } from "./local-reports";
import { checkOutput } from "./output-checks";
import { Outcomes } from "./outcomes";
import { Plan, planScreening } from "./table-plan";
import { ProgressStats, ProgressStream, progressReporter } from "./progress";
import { RelayTarget, prepareRelayTarget } from "./relay-target";
import { summarize, summaryText, usd } from "./summary";
import { InputTable, readTable } from "./table-reader";
import { OutputError } from "./atomic-file";
import { writeCsv, writeJson } from "./flat-writer";
import { OutputFormat } from "./output-format";
import { NewWorkbook, WriteInput, refreshInPlace } from "./workbook-writer";
import { WriteSource } from "./main-sheet";

/*
 * `str-screen`, callable in-process: tests run it with their own environment and streams, str-screen.ts
 * with the process's. Resolves with the exit code (EXIT; docs/cli.md, "Exit codes").
 */

export interface RunIO {
  env: Record<string, string | undefined>;
  stdout: { write(chunk: string): unknown };
  /** Messages and progress; a TTY gets a redrawn progress line. */
  stderr: ProgressStream;
  /** Aborting stops sending (Ctrl-C); what arrived is written. */
  signal?: AbortSignal;
}

/**
 * 0 every row screened; 1 some rows failed, the run was stopped or OUT could not be written; 2 a
 * usage or configuration error (nothing was sent); 3 str-screen itself failed, so a scheduler never
 * reads a crash as "some rows failed".
 */
export const EXIT = { done: 0, failed: 1, usage: 2, internal: 3 } as const;

export async function run(argv: readonly string[], io: RunIO): Promise<number> {
  const say = (line: string) => void io.stderr.write(`${line}\n`);
  const options = readCommandLine(argv, io, say);
  if (typeof options === "number") return options;
  const session: Session = { io, say, started: Date.now(), toClose: [] };
  try {
    return await screen(options, session);
  } catch (error) {
    return failureExit(error, say);
  } finally {
    for (const close of session.toClose.reverse()) await close();
  }
}

/** A run's streams and start, and what it has opened: closed when it ends, however it ends, the last opened first. */
interface Session {
  io: RunIO;
  say: (line: string) => void;
  started: number;
  toClose: (() => unknown)[];
}

/** The table read and planned, the relay opened and the plan priced; then the dry run's table, or the run. */
async function screen(given: ScreenOptions, session: Session): Promise<number> {
  const { io, say, toClose } = session;
  // The relay gets ready while the table is read.
  const relay = await prepareRelayTarget(io.env);
  toClose.push(() => relay.cancel());
  const table = await readTable(given.input, given.sheet);
  const earlier = earlierRun(table);
  const options = withEarlierRun(given, earlier);
  const decided = withDecisions(planScreening(table, options), table, options);
  const plan = decided.plan;
  const output =
    options.dryRun || !options.out ? undefined : { out: options.out, ...checkOutput(options.out, table, options) };
  say(
    `str-screen ${RELAY_VERSION}: ${describeTable(table, plan)}${output ? ` → ${output.out}${output.inPlace ? " (in place)" : ""}` : ""}`,
  );
  say(`Columns: ${describeColumns(plan)}`);
  if (earlier?.strategy)
    say(
      `Screened before with --strategy ${earlier.strategy}: ${options.strategy === earlier.strategy ? "kept" : `now ${options.strategy} (--change-strategy)`}.`,
    );
  decided.notes.forEach(say);
  const target = closedOnce(await relay.open());
  toClose.push(() => target.close());
  say(
    `Relay: ${target.description}${target.mode === "sandbox" ? " — sandbox: simulated data" : " — live: analyses are billed"}`,
  );

  const estimate = await estimateRun(target, plan, options.resendUnknown, io, say);
  if (options.dryRun || !output) {
    io.stdout.write(dryRunText(table, plan, estimate, refusedRows(plan)));
    return estimate.invalid + estimate.unusual + estimate.unknownOutcome > 0 ? EXIT.failed : EXIT.done;
  }
  planNotes(plan, estimate, say);
  return sendAndWrite({ options, table, plan, output, target, estimate }, session);
}

/** What a run that sends has settled before it sends. */
interface Planned {
  options: ScreenOptions;
  table: InputTable;
  plan: Plan;
  output: { out: string; inPlace: boolean };
  target: RelayTarget;
  estimate: ScreeningEstimate;
}

/** The rows sent, OUT written as they are answered or at the end, and the summary said. */
async function sendAndWrite(
  { options, table, plan, output, target, estimate }: Planned,
  { io, say, started, toClose }: Session,
): Promise<number> {
  const reports = target.linksOutliveRun ? undefined : keptReports(output.out);
  const outcomes = new Outcomes(options.comps, reports);
  toClose.push(() => outcomes.close());
  const sandbox = target.mode === "sandbox";
  const out = await openOutput(options.outFormat, output, { table, plan, outcomes, sandbox });
  toClose.push(() => out.discard());
  const { stopped, counts } = await sendRows(target, plan, estimate, outcomes, io);
  await keepUnsent(target, table, plan, outcomes, say);
  const unkept = await outcomes.reportsKept();
  if (unkept.length > 0)
    say(
      `${unkept.length} reports could not be kept beside ${output.out}, e.g. ${unkept[0]}: their Report cells say so.`,
    );
  // Nothing more goes through the relay: let an in-process one wind down while the workbook is written.
  void target.close();

  const summary = summarize(plan, counts, {
    ...summaryBase(options, table, output, target),
    elapsedSeconds: (Date.now() - started) / 1000,
    stopped,
  });
  if (stopped && summary.done === 0) {
    say(`Stopped before any row was answered: ${output.out} was not written.`);
    return EXIT.failed;
  }
  await out.write({ table, plan, outcomes, summary, sandbox });
  io.stdout.write(summaryText(summary, output.out));
  listFailures(plan, outcomes, say);
  return summary.failed > 0 || unkept.length > 0 ? EXIT.failed : EXIT.done;
}

/** The target, closed once however often it is asked: the run closes it when nothing more goes through it, and waits for that at its end. */
function closedOnce(target: RelayTarget): RelayTarget {
  let closing: Promise<void> | undefined;
  return { ...target, close: () => (closing ??= target.close()) };
}

/** The options; or the exit code when the command line is all there is to do (help, version, a usage error). */
function readCommandLine(argv: readonly string[], io: RunIO, say: (line: string) => void): ScreenOptions | number {
  const options = usageOrOptions(argv, say);
  if (typeof options === "number") return options;
  if (options.help || options.version) {
    io.stdout.write(`${options.help ? HELP : RELAY_VERSION}\n`);
    return EXIT.done;
  }
  return options;
}

/** The options, or EXIT.usage with the usage error said. */
function usageOrOptions(argv: readonly string[], say: (line: string) => void): ScreenOptions | number {
  try {
    return parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(`str-screen: ${error.message}`);
    say("Run str-screen --help for usage.");
    return EXIT.usage;
  }
}

/** What the Summary says of the run's settings and where it ran. */
function summaryBase(
  options: ScreenOptions,
  table: InputTable,
  output: { out: string; inPlace: boolean },
  target: RelayTarget,
): Omit<Parameters<typeof summarize>[2], "elapsedSeconds" | "stopped"> {
  return {
    mode: target.mode,
    finishedAt: new Date(),
    input: path.basename(table.file),
    sheet: table.sheetName,
    out: path.basename(output.out),
    inPlace: output.inPlace,
    strategy: options.strategy,
    decimal: options.decimal,
    refresh: options.refresh,
    refreshOlderThan: options.refreshOlderThan,
    enhance: options.enhance,
    relay: target.description,
  };
}

/** OUT, opened before the run: written at its end, or discarded when it is not. */
interface Output {
  write(w: WriteInput): Promise<void>;
  discard(): void;
}

/**
 * OUT in the format its extension names. A new workbook is written while the run goes, each row of
 * the screened sheet once it is final (workbook-writer.ts); the other outputs are written at the end.
 */
async function openOutput(
  format: OutputFormat,
  output: { out: string; inPlace: boolean },
  source: WriteSource,
): Promise<Output> {
  if (format === "xlsx" && !output.inPlace) {
    const book = await NewWorkbook.open(output.out, source);
    source.outcomes.onFinal = () => book.writeFinalRows();
    return { write: (w) => book.finish(w), discard: () => book.discard() };
  }
  const write = (w: WriteInput) =>
    format === "csv"
      ? writeCsv(output.out, w)
      : format === "json"
        ? writeJson(output.out, w)
        : refreshInPlace(output.out, w);
  return { write, discard: () => undefined };
}

/** Where the reports of a relay that is gone after the run are kept (LocalReports), made before anything is sent. */
function keptReports(out: string): LocalReports {
  const reports = new LocalReports(out);
  try {
    reports.prepare();
  } catch (error) {
    throw new UsageError(
      `the folder for the reports beside --out, ${reports.folder}, cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  return reports;
}

/** The run's plan in one line, and what the user should know before it spends. */
function planNotes(plan: Plan, estimate: ScreeningEstimate, say: (line: string) => void): void {
  const invalid = refusedRows(plan).length;
  say(
    `Plan: ${plan.items.length.toLocaleString("en-US")} rows to screen: ${estimate.cached.toLocaleString("en-US")} cached, ${estimate.toCreate.toLocaleString("en-US")} to create, ${estimate.duplicates} ${estimate.duplicates === 1 ? "duplicate" : "duplicates"}; at most ${usd(estimate.estimatedCostUSD)}${invalid > 0 ? `; ${invalid} invalid rows are marked, not sent` : ""}${estimate.unusual > 0 ? `; ${estimate.unusual} rows with unusual values are marked, not sent (--accept-unusual sends them)` : ""}.`,
  );
  if (estimate.estimatedCostUSD > estimate.budgetRemainingUSD) {
    say(
      `Note: the budget left today for this token (${usd(estimate.budgetRemainingUSD)}) is less than the estimate: rows past it fail with STR_BUDGET_EXCEEDED (the relay's budget) or STR_CALLER_BUDGET_EXCEEDED (the token's own), and nothing is billed for them.`,
    );
  }
  if (estimate.unknownOutcome > 0) {
    say(
      `Note: ${estimate.unknownOutcome} rows are held back by an earlier call: its outcome is unknown (it may have been billed), or it was billed and its answer could not be used. They fail with STR_OUTCOME_UNKNOWN or STR_UPSTREAM_UNUSABLE, nothing billed, unless run with --resend-unknown (those rows alone) or --refresh.`,
    );
  }
}

/** The run through the shared pipeline, its outcomes kept for the workbook and its progress on stderr. */
async function sendRows(
  target: RelayTarget,
  plan: Plan,
  estimate: ScreeningEstimate,
  outcomes: Outcomes,
  io: RunIO,
): Promise<{ stopped: boolean; counts: ScreeningCounts }> {
  const progress = progressReporter(io.stderr);
  progress.update(progressOf(plan, undefined));
  const result = await screenRows(target.client, plan, {
    ...(io.signal ? { signal: io.signal } : {}),
    verdicts: estimate.verdicts,
    // Only the comparables the Comparables sheet shows: a line of 50 is ten times one of five.
    maxComparables: outcomes.compsPerRow,
    again: "run again",
    acceptUnusual: "run again with --accept-unusual to send it",
    onOutcome: (row, outcome, answer, counts) => {
      const said = notEnhancedOf(row, outcome, answer);
      outcomes.record(row, said ? { ...outcome, notEnhanced: said.note } : outcome, answer);
      // Rows marked after a stop are not progress: the closing line counts them.
      if (row.kind === "request" && outcome.status !== "stopped") progress.update(progressOf(plan, counts));
    },
  });
  progress.finish(progressOf(plan, result.counts));
  return result;
}

/**
 * Rows the run did not change keep what they had: kept rows (no analysis to enhance) their earlier
 * cells; rows whose enhancement came back without figures (notEnhancedNote) the analysis the relay
 * stores for them, else their earlier cells, with the note saying why.
 */
async function keepUnsent(
  target: RelayTarget,
  table: InputTable,
  plan: Plan,
  outcomes: Outcomes,
  say: (line: string) => void,
): Promise<void> {
  let notEnhanced = 0;
  let failedCalls = 0;
  let billedUSD = 0;
  for (const row of plan.rows) {
    if (row.kind === "kept") outcomes.record(row, keptOutcome(table, plan, row), undefined);
    const outcome = outcomes.get(row);
    if (row.kind !== "request" || row.op !== "enhance" || !outcome?.notEnhanced) continue;
    notEnhanced++;
    billedUSD += outcome.costUSD;
    if (outcome.status === "failed" || outcome.status === "stopped") failedCalls++;
    const id = String((plan.items[row.item]?.params as { analysisId?: unknown }).analysisId);
    const said = { note: outcome.notEnhanced, costUSD: outcome.costUSD };
    const stored = await storedOutcome(target.client, id, plan.fields, said);
    if (stored) outcomes.record(row, stored.outcome, stored.answer);
    else {
      const cells = notEnhancedCells(earlierCells(table, plan, row.sheetRow), said.note);
      outcomes.record(row, { ...outcome, cells } satisfies RowOutcome, undefined);
    }
  }
  if (notEnhanced > 0) {
    const why =
      billedUSD > 0
        ? `their answers held no usable analysis (${billedUSD.toFixed(2)} USD billed)`
        : failedCalls === notEnhanced
          ? "their calls failed or were not sent, nothing was billed; their Warnings say why"
          : failedCalls === 0
            ? "every AI step failed, nothing was billed"
            : "every AI step failed or the call did not go through, nothing was billed; their Warnings say why";
    say(
      `${notEnhanced} rows were not enhanced: ${why}; they keep their figures, and run --enhance again to retry them.`,
    );
  }
}

/** The exit code of a run that threw, and what it says. */
function failureExit(error: unknown, say: (line: string) => void): number {
  if (error instanceof UsageError) {
    say(`str-screen: ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof OutputError) {
    say(`str-screen: ${error.message}`);
    return EXIT.failed;
  }
  if (error instanceof RelayCallError) {
    // Before the run itself (the dry run): nothing was sent.
    if (error.code === "STR_CANCELLED") {
      say("Stopped before anything was sent.");
      return EXIT.failed;
    }
    say(`str-screen: the relay failed before anything was sent: [${error.code}] ${error.message}`);
    return EXIT.usage;
  }
  say(
    `str-screen failed (a bug: please report it with this message): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return EXIT.internal;
}

function describeTable(table: InputTable, plan: Plan): string {
  const blank = plan.rows.filter((r) => r.kind === "blank").length;
  const where =
    table.format === "xlsx"
      ? `${path.basename(table.file)} (sheet ${JSON.stringify(table.sheetName)})`
      : path.basename(table.file);
  return `${where}, header in row ${plan.headerIndex + 1}, ${(plan.rows.length - blank).toLocaleString("en-US")} rows${blank > 0 ? ` (and ${blank} blank)` : ""}`;
}

/** "Property Address" → Address, …; not used: "Notes" — the mapping the task pane shows, as text. */
function describeColumns(plan: Plan): string {
  const used: string[] = [];
  const unused: string[] = [];
  plan.headers.forEach((h, c) => {
    if (isBlank(h)) return;
    if (isInBlock(plan.earlierBlock, c)) return;
    const field = plan.mapping[c];
    if (field) used.push(`${JSON.stringify(String(h).trim())} → ${INPUT_FIELDS[field].label}`);
    else unused.push(JSON.stringify(String(h).trim()));
  });
  const earlier = plan.earlierBlock
    ? `; earlier results in columns ${columnName(plan.earlierBlock.start)}–${columnName(plan.earlierBlock.start + plan.earlierBlock.width - 1)} are replaced`
    : "";
  return `${used.join(", ")}${unused.length > 0 ? `; not used: ${unused.join(", ")}` : ""}${earlier}`;
}

/** The progress line's counts: the rows sent, of which those with an outcome (a stop's unreached rows included). */
function progressOf(plan: Plan, c: Readonly<ScreeningCounts> | undefined): ProgressStats {
  if (!c) return { total: plan.items.length, done: 0, cached: 0, failed: 0, warnings: 0, spentUSD: 0 };
  return {
    total: plan.items.length,
    done: c.itemsDone,
    cached: c.cached + c.duplicate,
    failed: c.itemsFailed,
    warnings: c.withWarnings,
    spentUSD: c.spentUSD,
  };
}

function dryRunText(table: InputTable, plan: Plan, e: ScreeningEstimate, invalid: readonly HeldRow[]): string {
  const blank = plan.rows.filter((r) => r.kind === "blank").length;
  const pad = (label: string, value: number | string, note = "") =>
    `  ${label.padEnd(16)}${String(value).padStart(8)}${note ? `   ${note}` : ""}`;
  const lines = [
    `Dry run of ${path.basename(table.file)}${table.format === "xlsx" ? ` (sheet ${JSON.stringify(table.sheetName)})` : ""}: nothing sent, nothing spent.`,
    pad("Rows", plan.rows.length - blank, blank > 0 ? `and ${blank} blank` : ""),
    pad("Invalid", e.invalid, invalid.length > 0 ? "marked in the output, never sent" : ""),
    pad("Unusual", e.unusual, e.unusual > 0 ? "not sent without --accept-unusual" : ""),
    pad("Cached", e.cached, "free"),
    pad("To create", e.toCreate),
    pad("Duplicates", e.duplicates, e.duplicates > 0 ? "same as an earlier row: one call" : ""),
    pad(
      "Unknown outcome",
      e.unknownOutcome,
      e.unknownOutcome > 0 ? "sent before, outcome unknown or billed unusable: --resend-unknown sends them again" : "",
    ),
    pad(
      "Estimated cost",
      usd(e.estimatedCostUSD),
      `at most${e.sandbox ? " (sandbox: simulated money)" : ""}; budget left today for this token ${usd(e.budgetRemainingUSD)}`,
    ),
  ];
  listRows(lines, "Invalid rows:", invalid);
  listRows(
    lines,
    "Unusual rows (outside the plausible ranges; check them, or send them with --accept-unusual):",
    unusualRows(plan),
  );
  return `${lines.join("\n")}\n`;
}

type HeldRow = Extract<PlannedRow, { kind: "invalid" | "unusual" }>;

function listRows(lines: string[], title: string, rows: readonly HeldRow[]): void {
  if (rows.length === 0) return;
  lines.push(title);
  for (const row of rows.slice(0, 20)) lines.push(`  row ${row.sheetRow + 1}: ${describeIssues(row.issues)}`);
  if (rows.length > 20) lines.push(`  … and ${rows.length - 20} more`);
}

function listFailures(plan: Plan, outcomes: Outcomes, say: (line: string) => void): void {
  const failed: string[] = [];
  for (const row of plan.rows) {
    const o = outcomes.get(row);
    if (o?.error && o.status === "failed") failed.push(`  row ${row.sheetRow + 1}: ${o.error}`);
  }
  if (failed.length === 0) return;
  say(`Failed rows (marked ✖ in the output):`);
  for (const line of failed.slice(0, 10)) say(line);
  if (failed.length > 10) say(`  … and ${failed.length - 10} more (see the STR Warnings sheet)`);
}

/**
 * The relay's dry run of the plan. With --resend-unknown, the items whose earlier call has an
 * unknown outcome become billed refreshes of those rows alone, and the plan is priced again (free)
 * so the cost shown includes them.
 */
async function estimateRun(
  target: RelayTarget,
  plan: Plan,
  resendUnknown: boolean,
  io: RunIO,
  say: (line: string) => void,
): Promise<ScreeningEstimate> {
  const again = () => estimateScreening(target.client, [plan], io.signal);
  const estimate = await again();
  if (!resendUnknown || estimate.unknownOutcome === 0) return estimate;
  const resent = plan.items.filter((_, i) => estimate.verdicts[i] === "unknown-outcome");
  for (const item of resent) item.refresh = true;
  say(
    `--resend-unknown: ${resent.length} rows whose earlier call has an unknown outcome are sent again (billed if the service creates them).`,
  );
  return again();
}
