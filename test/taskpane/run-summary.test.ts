import { FIELD_CATALOGUE } from "../../src/contract";
import { maxBidField } from "../../src/model";
import { PlannedRow, RowOutcome } from "../../src/screening";
import { runSummary } from "../../taskpane/run-summary";
import { ScreeningJob } from "../../taskpane/screen";

/** The summary a finished screening shows about its deals, from the rows' outcomes. */
const coc = FIELD_CATALOGUE.find((f) => f.path === "yearOneCashOnCashPercentage");
const bid = maxBidField({ metric: "yearOneCashOnCashPercentage", target: 8 });
const fields = [coc!, bid];
const prices = [400_000, 500_000, 300_000];

const job = {
  fields,
  items: prices.map((p) => ({ strategy: "buy", params: { purchasePriceUSD: p } })),
} as unknown as ScreeningJob;

const request = (item: number): PlannedRow => ({
  kind: "request",
  op: "buy",
  item,
  unusual: [],
  sheetRow: item + 1,
  property: `${item + 1} Elm St`,
});
const answered = (cashOnCash: number, maxBid: number): RowOutcome => ({
  status: "created",
  cells: [{ value: "Created" }, { value: 45000 }, { value: cashOnCash }, { value: maxBid }],
  warnings: [],
  error: undefined,
  costUSD: 0.2,
  analysisId: "a",
});
const failed = (code: string): RowOutcome => ({
  status: "failed",
  cells: [],
  warnings: [],
  error: `[${code}] Not billed: …`,
  costUSD: 0,
  analysisId: undefined,
});

test("meets the max bid (price at or under it), best and worst cash-on-cash, held rows apart from failed ones grouped by why", () => {
  const s = runSummary(job);
  s.add(request(0), answered(0.091, 420_000));
  s.add(request(1), answered(0.042, 380_000));
  s.add(request(2), answered(0.12, 300_000));
  s.add({ kind: "unusual", op: "buy", issues: [], sheetRow: 5, property: "6 Elm St" }, failed("STR_UNUSUAL_INPUT"));
  s.add({ kind: "invalid", op: "buy", issues: [], sheetRow: 6, property: "7 Elm St" }, failed("STR_VALIDATION"));
  s.add(request(0), failed("STR_CALLER_BUDGET_EXCEEDED"));
  s.add(request(1), failed("STR_CALLER_BUDGET_EXCEEDED"));
  s.add(request(2), { ...failed("STR_CANCELLED"), status: "stopped" });
  expect(s.summary()).toEqual({
    analysed: 3,
    maxBid: { label: "Max bid (cash-on-cash>=8%)", meet: 2, of: 3 },
    cashOnCash: {
      best: { value: 0.12, property: "3 Elm St", sheetRow: 3 },
      worst: { value: 0.042, property: "2 Elm St", sheetRow: 2 },
    },
    held: 1,
    failed: [
      { code: "STR_VALIDATION", reason: "a value could not be read", rows: [6] },
      { code: "STR_CALLER_BUDGET_EXCEEDED", reason: "your daily budget was spent", rows: [1, 2] },
    ],
  });
});

test("without a max-bid or a cash-on-cash column, nothing is said of them", () => {
  const s = runSummary({ ...job, fields: [] } as unknown as ScreeningJob);
  s.add(request(0), answered(0.09, 1));
  expect(s.summary()).toMatchObject({ analysed: 1, maxBid: undefined, cashOnCash: undefined, failed: [] });
});
