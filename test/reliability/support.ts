import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RelayErrorCode } from "../../src/contract";
import { ERRORS } from "../../src/relay/relay-errors";
import { LedgerRow } from "../../src/relay/store/store";
import { Child, startSandboxProcess } from "../support/scale";

/**
 * For the reliability suites: a sandbox process whose bill survives SIGKILL (sandbox-ledger.js
 * appends every bill line to a file before the answer leaves), the reconciliation of the relay's
 * ledger against that bill, and the checks every batch line must pass.
 */

const LEDGER_HOOK = path.join(__dirname, "sandbox-ledger.js");

export function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `str-reliability-${label}-`));
}

/** A sandbox process (lib/sandbox/standalone.js) that logs its arrivals, statuses and bill to `logFile`. */
export function startLoggedSandbox(logFile: string, env: Record<string, string> = {}): Promise<Child> {
  const nodeOptions = [process.env.NODE_OPTIONS, `--require ${LEDGER_HOOK}`].filter(Boolean).join(" ");
  return startSandboxProcess({
    SANDBOX_TIME_SCALE: "0",
    NODE_OPTIONS: nodeOptions,
    SANDBOX_LEDGER_LOG: logFile,
    ...env,
  });
}

export interface BillLine {
  at: number;
  op: string;
  reports: number;
  aiFunctions: number;
  cents: number;
  analysisId: string | undefined;
  subject: string;
}

/** One life of the sandbox's memory: from a process start or a reset to the next. */
export interface Epoch {
  pid: number;
  arrivals: { at: number; ok: boolean }[];
  statuses: { at: number; status: number }[];
  bills: BillLine[];
}

type LogEntry =
  | { e: "start"; pid: number; at: number }
  | { e: "reset"; at: number }
  | { e: "arrival"; at: number; ok: boolean }
  | { e: "status"; at: number; status: number }
  | ({ e: "bill" } & BillLine);

/** The log split into epochs, oldest first. */
export function readSandboxLog(logFile: string): Epoch[] {
  const epochs: Epoch[] = [];
  let pid = 0;
  const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "";
  for (const line of text.split("\n")) {
    if (!line) continue;
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      continue; // a line cut short by SIGKILL
    }
    if (entry.e === "start" || entry.e === "reset") {
      if (entry.e === "start") pid = entry.pid;
      epochs.push({ pid, arrivals: [], statuses: [], bills: [] });
      continue;
    }
    const epoch = epochs[epochs.length - 1];
    if (!epoch) continue;
    if (entry.e === "arrival") epoch.arrivals.push({ at: entry.at, ok: entry.ok });
    else if (entry.e === "status") epoch.statuses.push({ at: entry.at, status: entry.status });
    else
      epoch.bills.push({
        at: entry.at,
        op: entry.op,
        reports: entry.reports,
        aiFunctions: entry.aiFunctions,
        cents: entry.cents,
        analysisId: entry.analysisId,
        subject: entry.subject,
      });
  }
  return epochs;
}

export function lastEpoch(logFile: string): Epoch {
  const epoch = readSandboxLog(logFile).at(-1);
  if (!epoch) throw new Error(`no sandbox epoch in ${logFile}`);
  return epoch;
}

/** The relay's cache key of a request, from the sandbox's canonical form of it (both use canonicalRequest). */
export const keyOfSubject = (subject: string) => createHash("sha256").update(subject).digest("hex");

export interface Reconciliation {
  /** What the sandbox billed, cents. */
  sandboxCents: number;
  /** What the relay's ledger says was billed, cents. */
  relayBilledCents: number;
  /** The most the relay's unknown calls can have cost, cents. */
  unknownMaxCents: number;
  unknownCalls: number;
  /** Bill lines the relay does not have as billed: each must be one of its unknown calls. */
  billedUnseen: number;
  /** Requests the sandbox created more than once. */
  duplicateCreates: number;
  /** Anything that does not add up; empty when the books agree. */
  problems: string[];
}

/**
 * Matches the relay's ledger against the sandbox's bill, line by line:
 * - every call the relay recorded billed is a line of the bill, with the same analysis, request and cents;
 * - every other line of the bill is a call the relay recorded unknown (for the same request), costing at
 *   most that call's maximum;
 * - no call is left pending, and failed/free calls cost nothing.
 * Hence relay billed ≤ sandbox billed ≤ relay billed + unknown.
 */
export function reconcile(ledger: LedgerRow[], bills: BillLine[]): Reconciliation {
  const problems: string[] = [];
  const byId = new Map<string, BillLine[]>();
  for (const bill of bills) {
    if (!bill.analysisId) problems.push(`a bill line without an analysis: ${JSON.stringify(bill)}`);
    else byId.set(bill.analysisId, [...(byId.get(bill.analysisId) ?? []), bill]);
  }
  const matched = new Set<BillLine>();
  for (const row of ledger) {
    if (row.state === "pending") problems.push(`ledger row ${row.id} is still pending`);
    if (row.state !== "billed") {
      if (row.cents !== 0) problems.push(`ledger row ${row.id} is ${row.state} but has ${row.cents} cents`);
      continue;
    }
    const candidates = (byId.get(row.analysisId ?? "") ?? []).filter((b) => !matched.has(b) && b.op === row.op);
    const bill = candidates[0];
    if (!bill) {
      problems.push(
        `ledger row ${row.id} is billed ${row.cents} cents for ${row.analysisId}, which the sandbox never billed`,
      );
      continue;
    }
    matched.add(bill);
    if (bill.cents !== row.cents)
      problems.push(`ledger row ${row.id}: relay says ${row.cents} cents, sandbox billed ${bill.cents}`);
    if (keyOfSubject(bill.subject) !== row.cacheKey)
      problems.push(`ledger row ${row.id}: the sandbox billed another request for ${row.analysisId}`);
  }
  const unknownRows = ledger.filter((row) => row.state === "unknown");
  const usedUnknown = new Set<LedgerRow>();
  const unseen = bills.filter((b) => !matched.has(b));
  for (const bill of unseen) {
    const key = keyOfSubject(bill.subject);
    const row = unknownRows.find((r) => !usedUnknown.has(r) && r.cacheKey === key && r.op === bill.op);
    if (!row) {
      problems.push(
        `the sandbox billed ${bill.cents} cents for ${bill.analysisId} (${bill.subject}) and the relay has no billed or unknown call for it`,
      );
      continue;
    }
    usedUnknown.add(row);
    if (bill.cents > row.maxCents)
      problems.push(
        `the sandbox billed ${bill.cents} cents for unknown call ${row.id}, more than its maximum ${row.maxCents}`,
      );
  }
  const creates = new Map<string, number>();
  for (const bill of bills) if (bill.reports > 0) creates.set(bill.subject, (creates.get(bill.subject) ?? 0) + 1);
  let duplicateCreates = 0;
  for (const n of creates.values()) if (n > 1) duplicateCreates += n - 1;
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  return {
    sandboxCents: sum(bills.map((b) => b.cents)),
    relayBilledCents: sum(ledger.filter((r) => r.state === "billed").map((r) => r.cents)),
    unknownMaxCents: sum(unknownRows.map((r) => r.maxCents)),
    unknownCalls: unknownRows.length,
    billedUnseen: unseen.length,
    duplicateCreates,
    problems,
  };
}

export interface Line {
  index: number;
  status: number;
  body: any;
}

/** NDJSON text to lines. */
export function parseLines(text: string): Line[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/**
 * What is wrong with a batch's lines: one per item, each a 200 with an analysis or an error status
 * with the relay's JSON error shape, a known code, and the status that code has.
 */
export function lineProblems(lines: Line[], items: number): string[] {
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const line of lines) {
    if (!Number.isInteger(line.index) || line.index < 0 || line.index >= items)
      problems.push(`line with index ${line.index}`);
    if (seen.has(line.index)) problems.push(`item ${line.index} answered twice`);
    seen.add(line.index);
    if (line.status === 200) {
      if (
        line.body?.success !== true ||
        typeof line.body?.data?._id !== "string" ||
        typeof line.body?.relay?.cached !== "boolean"
      ) {
        problems.push(`item ${line.index}: 200 without an analysis: ${JSON.stringify(line.body).slice(0, 200)}`);
      }
      continue;
    }
    const error = line.body?.error;
    const code = error?.code as RelayErrorCode | undefined;
    if (line.status < 400 || line.status > 599) problems.push(`item ${line.index}: status ${line.status}`);
    if (
      line.body?.success !== false ||
      typeof error?.message !== "string" ||
      error.message.length === 0 ||
      !code ||
      !(code in ERRORS)
    ) {
      problems.push(
        `item ${line.index}: ${line.status} without the error shape: ${JSON.stringify(line.body).slice(0, 200)}`,
      );
    } else if (ERRORS[code].status !== line.status) {
      problems.push(`item ${line.index}: ${code} answered ${line.status}, not ${ERRORS[code].status}`);
    }
  }
  if (seen.size !== items) problems.push(`${items} items, ${seen.size} answered`);
  return problems;
}

/** "200" or "502 STR_UPSTREAM_FAILED": how a line ended. */
export const outcome = (line: Line) =>
  line.status === 200 ? "200" : `${line.status} ${String(line.body?.error?.code)}`;

/** Counts of each outcome. */
export function tally(lines: Line[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of lines) counts[outcome(line)] = (counts[outcome(line)] ?? 0) + 1;
  return counts;
}

export async function patchFaults(sandboxUrl: string, patch: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sandboxUrl}/__sandbox/faults`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(patch),
  });
  if (res.status !== 200) throw new Error(`PATCH faults answered ${res.status}: ${await res.text()}`);
}

/** Every fault off (the AI outcome rates too), the spec's rate limit. */
export const NO_FAULTS = {
  unavailableRate: 0,
  dropBeforeProcessRate: 0,
  dropAfterProcessRate: 0,
  extraLatencyMs: 0,
  aiFailureRate: 0,
  aiTimeoutRate: 0,
  driftRate: 0,
  textErrors: false,
  rateLimitPerSecond: 100,
};

interface QuietStats {
  arrivals: number;
  statuses: Record<string, number>;
  dropped: { beforeProcess: number; afterProcess: number };
  billing: { calls: number; reports: number; aiFunctions: number; cents: number };
  duplicateCreates: number;
}

/** Waits until every call that reached the sandbox has ended (answered or dropped), and returns its stats. */
export async function sandboxQuiet(sandboxUrl: string, ms = 15_000): Promise<QuietStats> {
  const end = Date.now() + ms;
  for (;;) {
    const stats = (await (await fetch(`${sandboxUrl}/__sandbox/stats`)).json()) as QuietStats;
    const ended =
      Object.values(stats.statuses).reduce((s, n) => s + n, 0) +
      stats.dropped.beforeProcess +
      stats.dropped.afterProcess;
    if (ended >= stats.arrivals) return stats;
    if (Date.now() > end) throw new Error(`the sandbox did not go quiet: ${JSON.stringify(stats)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One summary line per scenario when RELIABILITY_REPORT is set (numbers for a human, not asserted here). */
export function report(scenario: string, numbers: Record<string, unknown>): void {
  if (process.env.RELIABILITY_REPORT) process.stdout.write(`[reliability] ${scenario}: ${JSON.stringify(numbers)}\n`);
}

/** The books' figures for a report line. */
export function summary(books: ReturnType<typeof reconcile>) {
  return {
    sandboxCents: books.sandboxCents,
    relayBilledCents: books.relayBilledCents,
    unknownCalls: books.unknownCalls,
    unknownMaxCents: books.unknownMaxCents,
    billedUnseen: books.billedUnseen,
    duplicates: books.duplicateCreates,
  };
}
