/*
 * What a finished screening says about the deals, not only about the rows: how many meet the
 * max-bid rule (asking price at or under the max bid), the best and worst cash-on-cash, the rows
 * held back as unusual, and the failed rows grouped by why. Kept from each row's outcome as the run
 * writes it, so nothing is read back from the sheet.
 */
import { RowOutcome } from "../src/screening";
import { PlannedRow } from "../src/screening";
import { LEADING_COLUMNS } from "../src/sheet";
import { ScreeningJob } from "./screen";

export interface DealFigure {
  /** As the cell holds it: a fraction for a percentage (0.082 for 8.2 %). */
  value: number;
  property: string;
  /** 0-based sheet row. */
  sheetRow: number;
}

export interface FailureGroup {
  code: string;
  /** Why, in a few words ("your daily budget was spent"). */
  reason: string;
  /** 0-based sheet rows. */
  rows: number[];
}

export interface RunSummary {
  /** Rows with figures (created, cached or shared). */
  analysed: number;
  /** With a max-bid column: rows whose asking price is at or under their max bid, of the rows with both. */
  maxBid: { label: string; meet: number; of: number } | undefined;
  /** With a cash-on-cash column: its best and worst row. */
  cashOnCash: { best: DealFigure; worst: DealFigure } | undefined;
  /** Rows held back as unusual, never sent. */
  held: number;
  failed: FailureGroup[];
}

const CASH_ON_CASH = "yearOneCashOnCashPercentage";

/** A failure's code in a few words; a code not listed here is named as it is. */
const REASONS: Readonly<Record<string, string>> = {
  STR_VALIDATION: "a value could not be read",
  STR_UPSTREAM_REJECTED: "the service refused the inputs",
  STR_BUDGET_EXCEEDED: "today's budget was spent",
  STR_CALLER_BUDGET_EXCEEDED: "your daily budget was spent",
  STR_OUTCOME_UNKNOWN: "sent before, outcome unknown",
  STR_UPSTREAM_THROTTLED: "the service was busy",
  STR_UPSTREAM_FAILED: "the service failed",
  STR_UPSTREAM_TIMEOUT: "the service did not answer in time",
  STR_RELAY_UNREACHABLE: "the relay could not be reached",
  STR_RELAY_TIMEOUT: "the relay did not answer in time",
};

export function runSummary(job: ScreeningJob): {
  add(row: PlannedRow, outcome: RowOutcome): void;
  summary(): RunSummary;
} {
  const column = (path: string) => {
    const i = job.fields.findIndex((f) => f.path === path);
    return i < 0 ? undefined : LEADING_COLUMNS + i;
  };
  const maxBidField = job.fields.find((f) => f.path.startsWith("maxBid("));
  const bidColumn = maxBidField ? column(maxBidField.path) : undefined;
  const cocColumn = column(CASH_ON_CASH);
  const numberAt = (o: RowOutcome, c: number | undefined) => {
    const v = c === undefined ? undefined : o.cells[c]?.value;
    return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  };

  let analysed = 0;
  let held = 0;
  const bids = { meet: 0, of: 0 };
  let best: DealFigure | undefined;
  let worst: DealFigure | undefined;
  const failures = new Map<string, number[]>();

  return {
    add(row, outcome) {
      if (outcome.status === "stopped") return;
      if (row.kind === "unusual") return void held++;
      if (outcome.status === "failed") {
        const code = /^\[([A-Z_]+)\]/.exec(outcome.error ?? "")?.[1] ?? "STR_INTERNAL";
        failures.set(code, [...(failures.get(code) ?? []), row.sheetRow]);
        return;
      }
      analysed++;
      const price =
        row.kind === "request"
          ? (job.items[row.item]?.params as { purchasePriceUSD?: unknown } | undefined)?.purchasePriceUSD
          : undefined;
      const bid = numberAt(outcome, bidColumn);
      if (typeof price === "number" && bid !== undefined) {
        bids.of++;
        if (price <= bid) bids.meet++;
      }
      const coc = numberAt(outcome, cocColumn);
      if (coc !== undefined) {
        const deal = { value: coc, property: row.property, sheetRow: row.sheetRow };
        if (!best || coc > best.value) best = deal;
        if (!worst || coc < worst.value) worst = deal;
      }
    },
    summary() {
      return {
        analysed,
        maxBid: maxBidField ? { label: maxBidField.label, ...bids } : undefined,
        cashOnCash: best && worst ? { best, worst } : undefined,
        held,
        failed: [...failures].map(([code, rows]) => ({ code, reason: REASONS[code] ?? code, rows })),
      };
    },
  };
}
