import {
  AiFunction,
  Charge,
  NO_CHARGE,
  aiChargeEstimated,
  centsToUSD,
  charge,
  chargeFor,
  failedAiFunctions,
  maxCharge,
  requestedAiFunctions,
} from "../../src/contract";

/**
 * The billing model (spec: "What the service does"): 0.20 USD a created report, 0.10 USD a completed
 * AI function, nothing for failed AI steps, failed calls, or an enhance where every function failed.
 */

const BOTH = { addAIComps: true, addAIExpenseEstimates: true };
const COMPS = { addAIComps: true };
const EXPENSES = { addAIExpenseEstimates: true };
const BOTH_FNS: AiFunction[] = ["addAIComps", "addAIExpenseEstimates"];

// The sandbox's own warning texts (src/sandbox/sandbox-server.ts), as the live service might word them.
const COMPS_US_ONLY =
  "addAIComps skipped: AI comparables are available for US properties only; standard comparables were used. Not billed.";
const COMPS_FAILED = "addAIComps failed: the AI step could not complete; standard comparables were used. Not billed.";
const EXPENSES_FAILED =
  "addAIExpenseEstimates failed: the AI step could not complete; category default expenses were used. Not billed.";
const EXPENSES_TIMED_OUT =
  "addAIExpenseEstimates timed out after 90 s; category default expenses were used. Not billed.";

describe("creating a report", () => {
  test.each(["buy", "arb", "owned", "cohost"] as const)("%s without AI costs 20 cents: one report", (op) => {
    expect(chargeFor(op, {}, { succeeded: true, hasData: true })).toEqual({ reports: 1, aiFunctions: 0, cents: 20 });
  });

  test("with both AI functions completing it costs 20 + 2 × 10 = 40 cents", () => {
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: true })).toEqual({
      reports: 1,
      aiFunctions: 2,
      cents: 40,
    });
  });

  test("with one AI function completing it costs 30 cents", () => {
    expect(chargeFor("cohost", COMPS, { succeeded: true, hasData: true })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
    expect(chargeFor("arb", EXPENSES, { succeeded: true, hasData: true, warnings: [] })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
  });

  test("an AI flag set to false is not requested and not billed", () => {
    expect(
      chargeFor("buy", { addAIComps: false, addAIExpenseEstimates: false }, { succeeded: true, hasData: true }).cents,
    ).toBe(20);
  });

  test("a failed AI function is not billed; the report still is", () => {
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: true, warnings: [COMPS_US_ONLY] })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
    expect(
      chargeFor("buy", BOTH, { succeeded: true, hasData: true, warnings: [COMPS_FAILED, EXPENSES_TIMED_OUT] }),
    ).toEqual({
      reports: 1,
      aiFunctions: 0,
      cents: 20,
    });
  });

  test("a create answered without data is still billed its report and its completed functions", () => {
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: false })).toEqual({
      reports: 1,
      aiFunctions: 2,
      cents: 40,
    });
    expect(chargeFor("arb", {}, { succeeded: true, hasData: false })).toEqual({
      reports: 1,
      aiFunctions: 0,
      cents: 20,
    });
  });

  test("only expense estimates failing bills the completed comparables", () => {
    expect(chargeFor("owned", BOTH, { succeeded: true, hasData: true, warnings: [EXPENSES_FAILED] })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
  });
});

describe("enhancing an analysis", () => {
  test("has no base fee: 10 cents a completed AI function", () => {
    expect(chargeFor("enhance", COMPS, { succeeded: true, hasData: true })).toEqual({
      reports: 0,
      aiFunctions: 1,
      cents: 10,
    });
    expect(chargeFor("enhance", BOTH, { succeeded: true, hasData: true })).toEqual({
      reports: 0,
      aiFunctions: 2,
      cents: 20,
    });
  });

  test("partial success bills only the completed function", () => {
    expect(chargeFor("enhance", BOTH, { succeeded: true, hasData: true, warnings: [COMPS_US_ONLY] })).toEqual({
      reports: 0,
      aiFunctions: 1,
      cents: 10,
    });
  });

  test("an answer with no data (every function failed) is free, whatever the warnings say", () => {
    expect(
      chargeFor("enhance", BOTH, { succeeded: true, hasData: false, warnings: [COMPS_FAILED, EXPENSES_FAILED] }),
    ).toEqual(NO_CHARGE);
    expect(chargeFor("enhance", COMPS, { succeeded: true, hasData: false })).toEqual(NO_CHARGE);
  });
});

describe("failures are free", () => {
  test.each(["buy", "arb", "owned", "cohost", "enhance"] as const)(
    "a failed %s call costs nothing, even with AI requested",
    (op) => {
      expect(chargeFor(op, BOTH, { succeeded: false, hasData: false })).toEqual({
        reports: 0,
        aiFunctions: 0,
        cents: 0,
      });
      expect(chargeFor(op, BOTH, { succeeded: false, hasData: true })).toEqual({
        reports: 0,
        aiFunctions: 0,
        cents: 0,
      });
    },
  );
});

describe("reading which AI function failed from the warnings: only a warning that names it", () => {
  test.each([
    ["its parameter name", COMPS_US_ONLY, ["addAIComps"]],
    ["the expense function's parameter name", EXPENSES_TIMED_OUT, ["addAIExpenseEstimates"]],
    ["'AI comparables'", "AI comparables need at least 8 photos", ["addAIComps"]],
    ["'AI comps'", "AI comps unavailable for this market", ["addAIComps"]],
    ["'AI-selected comparables'", "AI-selected comparables could not be chosen", ["addAIComps"]],
    ["'AI expense estimates'", "AI expense estimates timed out", ["addAIExpenseEstimates"]],
    ["'AI expenses'", "AI expenses skipped", ["addAIExpenseEstimates"]],
  ])("a string warning naming it by %s marks that function", (_name, warning, failed) => {
    expect(failedAiFunctions(BOTH_FNS, [warning])).toEqual(failed);
  });

  // Before, these were guessed from their words: a warning about the comparables found (which every
  // analysis has) un-billed a completed AI step, and the ledger told less than the service billed.
  test.each([
    "Only 12 comparables found within 3 miles",
    "Could not find a comp within 5 miles",
    "Expense model unavailable",
    "Expensive area: taxes estimated high",
    "AI unavailable",
    "The AI step timed out",
    "AIR conditioning assumed",
    "addAIFloorPlan is not supported",
    "Property tax estimated from the county average",
  ])("a warning that names no AI function marks nothing: %j", (warning) => {
    expect(failedAiFunctions(BOTH_FNS, [warning])).toEqual([]);
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: true, warnings: [warning] }).cents).toBe(40);
  });

  test("'Only 12 comparables found within 3 miles' bills a completed AI comparables step, as an estimate", () => {
    const warnings = ["Only 12 comparables found within 3 miles"];
    expect(chargeFor("buy", COMPS, { succeeded: true, hasData: true, warnings })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
    expect(aiChargeEstimated(COMPS, warnings)).toBe(true);
  });

  test("a warning object is read by its fields: a code naming the function un-bills it", () => {
    const byCode = { code: "AI_COMPS_FAILED", message: "Could not complete" };
    expect(failedAiFunctions(BOTH_FNS, [byCode])).toEqual(["addAIComps"]);
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: true, warnings: [byCode] }).cents).toBe(30);
    expect(failedAiFunctions(BOTH_FNS, [{ code: "ai-expenses-timeout", message: "x" }])).toEqual([
      "addAIExpenseEstimates",
    ]);
    expect(failedAiFunctions(BOTH_FNS, [{ code: "AI_EXPENSE_ESTIMATES_FAILED" }])).toEqual(["addAIExpenseEstimates"]);
    expect(failedAiFunctions(BOTH_FNS, [{ code: "ADDAICOMPS_SKIPPED" }])).toEqual(["addAIComps"]);
  });

  test("a warning object's function field decides before its code and its text", () => {
    // The sandbox's object warnings (src/sandbox/sandbox-server.ts warningOf): function, code, message.
    const sandbox = { function: "addAIExpenseEstimates", code: "AI_STEP_TIMEOUT", message: EXPENSES_TIMED_OUT };
    expect(failedAiFunctions(BOTH_FNS, [sandbox])).toEqual(["addAIExpenseEstimates"]);
    const mixed = { function: "addAIComps", code: "AI_EXPENSES_FAILED", message: "AI expenses too" };
    expect(failedAiFunctions(BOTH_FNS, [mixed])).toEqual(["addAIComps"]);
    expect(
      failedAiFunctions(BOTH_FNS, [{ code: "E1", message: "AI comparables skipped for a non-US address" }]),
    ).toEqual(["addAIComps"]);
  });

  test("a code or text that names no function marks nothing", () => {
    expect(failedAiFunctions(BOTH_FNS, [{ code: "AI_STEP_FAILED", message: "the AI step failed" }])).toEqual([]);
    expect(failedAiFunctions(BOTH_FNS, [{ code: "COMPS_FEW", message: "few comparables" }])).toEqual([]);
  });

  test("a function named by its parameter name is the only one marked, whatever else the warning says", () => {
    expect(failedAiFunctions(BOTH_FNS, ["addAIExpenseEstimates skipped: AI comparables were fine"])).toEqual([
      "addAIExpenseEstimates",
    ]);
    expect(failedAiFunctions(BOTH_FNS, [EXPENSES_FAILED])).toEqual(["addAIExpenseEstimates"]);
  });

  test("only requested functions can fail", () => {
    expect(failedAiFunctions(["addAIExpenseEstimates"], [EXPENSES_FAILED, COMPS_FAILED])).toEqual([
      "addAIExpenseEstimates",
    ]);
    expect(failedAiFunctions([], [COMPS_FAILED, EXPENSES_FAILED])).toEqual([]);
  });

  test("the charge is an estimate only when a warning names no function and some function is billed", () => {
    expect(aiChargeEstimated(BOTH, [])).toBe(false);
    expect(aiChargeEstimated(BOTH, [COMPS_FAILED])).toBe(false);
    expect(aiChargeEstimated(BOTH, [COMPS_FAILED, "Address geocoded approximately"])).toBe(true);
    expect(aiChargeEstimated(BOTH, [COMPS_FAILED, EXPENSES_FAILED, "Address geocoded approximately"])).toBe(false);
    expect(aiChargeEstimated({}, ["Address geocoded approximately"])).toBe(false);
  });
});

describe("the most a call can cost", () => {
  test("a create is a report plus every AI function requested", () => {
    expect(maxCharge("buy", {})).toEqual({ reports: 1, aiFunctions: 0, cents: 20 });
    expect(maxCharge("arb", COMPS)).toEqual({ reports: 1, aiFunctions: 1, cents: 30 });
    expect(maxCharge("owned", BOTH)).toEqual({ reports: 1, aiFunctions: 2, cents: 40 });
    expect(maxCharge("cohost", { addAIComps: false, addAIExpenseEstimates: true })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
  });

  test("an enhance is only its AI functions", () => {
    expect(maxCharge("enhance", COMPS)).toEqual({ reports: 0, aiFunctions: 1, cents: 10 });
    expect(maxCharge("enhance", BOTH)).toEqual({ reports: 0, aiFunctions: 2, cents: 20 });
    expect(maxCharge("enhance", {})).toEqual({ reports: 0, aiFunctions: 0, cents: 0 });
  });
});

describe("amounts", () => {
  test("a charge is whole, non-negative counts and cents", () => {
    expect(Charge.safeParse({ reports: 1, aiFunctions: 2, cents: 40 }).success).toBe(true);
    for (const bad of [
      { reports: 1, aiFunctions: 0, cents: 20.5 },
      { reports: -1, aiFunctions: 0, cents: 0 },
      { reports: 0, aiFunctions: 0.5, cents: 0 },
      { reports: 0, aiFunctions: 0 },
    ]) {
      expect(Charge.safeParse(bad).success).toBe(false);
    }
  });

  test("charge adds whole cents: 3 reports and 7 AI functions are 130 cents", () => {
    expect(charge(3, 7)).toEqual({ reports: 3, aiFunctions: 7, cents: 130 });
  });

  test("cents convert to dollars without float drift", () => {
    expect(centsToUSD(30)).toBe(0.3);
    expect(centsToUSD(10 + 20)).toBe(0.3);
    expect(centsToUSD(12_345)).toBe(123.45);
    expect(centsToUSD(0)).toBe(0);
    expect(centsToUSD(30.4)).toBe(0.3);
  });

  test("requestedAiFunctions lists only the flags set to true, in a fixed order", () => {
    expect(requestedAiFunctions({ addAIExpenseEstimates: true, addAIComps: true })).toEqual([
      "addAIComps",
      "addAIExpenseEstimates",
    ]);
    expect(requestedAiFunctions({ addAIComps: false })).toEqual([]);
  });
});
