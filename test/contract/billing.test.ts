import {
  AiFunction,
  Charge,
  NO_CHARGE,
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

// The sandbox's own warning texts (src/sandbox/server.ts), as the live service might word them.
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

describe("reading which AI function failed from the warnings", () => {
  test.each([
    ["the function's name", COMPS_US_ONLY, ["addAIComps"]],
    ["comparables in words", "AI comparables need at least 8 photos", ["addAIComps"]],
    ["comps in words", "Could not select comps", ["addAIComps"]],
    ["expenses in words", "Expense estimation timed out", ["addAIExpenseEstimates"]],
    ["the expense function's name", EXPENSES_TIMED_OUT, ["addAIExpenseEstimates"]],
  ])("a string warning naming %s marks that function", (_name, warning, failed) => {
    expect(failedAiFunctions(BOTH_FNS, [warning])).toEqual(failed);
  });

  // A warning that says only "comp" or "comparable" still marks comparables: missed, the ledger would
  // charge 0.10 USD more than the service billed.
  test.each([
    ["comp", "Could not find a comp within 5 miles", ["addAIComps"]],
    ["comparable", "No comparable listing found", ["addAIComps"]],
    ["COMPS in capitals", "COMPS UNAVAILABLE", ["addAIComps"]],
    ["Comparables", "Comparables skipped", ["addAIComps"]],
    ["expense", "Expense model unavailable", ["addAIExpenseEstimates"]],
  ])("a string warning saying only %s marks that function", (_word, warning, failed) => {
    expect(failedAiFunctions(BOTH_FNS, [warning])).toEqual(failed);
  });

  test("a create billed after a warning saying only 'comp' charges the report and the expenses: 30 cents", () => {
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: true, warnings: ["Could not find a comp"] })).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
    expect(chargeFor("enhance", BOTH, { succeeded: true, hasData: true, warnings: ["No comparable found"] })).toEqual({
      reports: 0,
      aiFunctions: 1,
      cents: 10,
    });
  });

  test.each([
    "Compact layout assumed",
    "Comparison with last year unavailable",
    "Company records incomplete",
    "Expensive area: taxes estimated high",
    "Email notification failed",
    "AIR conditioning assumed",
    "Said to be near the lake",
    "Autocomp disabled",
    "Incomparable lake views",
    "Comparableness scored low",
    "Subexpenses grouped",
  ])("a word only starting like comp, expense or AI marks nothing: %j", (warning) => {
    expect(failedAiFunctions(BOTH_FNS, [warning])).toEqual([]);
  });

  test.each([
    ["AI in capitals", "AI unavailable"],
    ["ai in lower case", "the ai step was skipped"],
    ["artificial", "Artificial intelligence step skipped"],
    ["addAI", "addAIFloorPlan is not supported"],
  ])("a warning speaking of AI by %s without naming a function marks one", (_how, warning) => {
    expect(failedAiFunctions(["addAIComps"], [warning])).toEqual(["addAIComps"]);
  });

  test("unattributed AI warnings mark no more functions than were requested", () => {
    expect(failedAiFunctions(["addAIComps"], ["AI step failed", "AI step timed out"])).toEqual(["addAIComps"]);
    expect(failedAiFunctions(BOTH_FNS, [EXPENSES_FAILED, "An AI step failed"])).toEqual(BOTH_FNS);
  });

  test("a function named by its parameter name is the only one marked, whatever else the warning says", () => {
    expect(failedAiFunctions(BOTH_FNS, ["addAIExpenseEstimates skipped: comparables were fine"])).toEqual([
      "addAIExpenseEstimates",
    ]);
  });

  test("'could not complete' in an expense warning does not mark comparables", () => {
    expect(failedAiFunctions(BOTH_FNS, [EXPENSES_FAILED])).toEqual(["addAIExpenseEstimates"]);
  });

  test("an object warning is read by its text and its fields", () => {
    const byField = { function: "addAIExpenseEstimates", code: "AI_STEP_TIMEOUT", message: "timed out after 90 s" };
    const byMessage = { code: "E1", message: "AI comparables skipped for a non-US address" };
    expect(failedAiFunctions(BOTH_FNS, [byField])).toEqual(["addAIExpenseEstimates"]);
    expect(failedAiFunctions(BOTH_FNS, [byMessage])).toEqual(["addAIComps"]);
  });

  test("an object warning with a 'could not complete' message names only its own function", () => {
    const w = { function: "addAIExpenseEstimates", code: "AI_STEP_FAILED", message: EXPENSES_FAILED };
    expect(failedAiFunctions(BOTH_FNS, [w])).toEqual(["addAIExpenseEstimates"]);
  });

  test("a warning about AI that names no function marks one requested function", () => {
    expect(failedAiFunctions(BOTH_FNS, ["The AI service is unavailable"])).toHaveLength(1);
    expect(failedAiFunctions(["addAIExpenseEstimates"], ["The AI step timed out"])).toEqual(["addAIExpenseEstimates"]);
  });

  test("two unattributed AI warnings mark two functions; an attributed one leaves the other for them", () => {
    expect(failedAiFunctions(BOTH_FNS, ["AI step failed", "AI step timed out"])).toEqual(BOTH_FNS);
    expect(failedAiFunctions(BOTH_FNS, [COMPS_FAILED, "An AI step timed out"])).toEqual(BOTH_FNS);
  });

  test.each([
    "Property tax estimated from the county average",
    "Occupancy computed from listings nearby",
    "Report generation completed with a complimentary upgrade",
    "Address geocoded approximately",
  ])("a warning unrelated to AI marks nothing: %j", (warning) => {
    expect(failedAiFunctions(BOTH_FNS, [warning])).toEqual([]);
    expect(chargeFor("buy", BOTH, { succeeded: true, hasData: true, warnings: [warning] }).cents).toBe(40);
  });

  test("only requested functions can fail", () => {
    expect(failedAiFunctions(["addAIExpenseEstimates"], [EXPENSES_FAILED])).toEqual(["addAIExpenseEstimates"]);
    expect(failedAiFunctions([], [COMPS_FAILED, EXPENSES_FAILED])).toEqual([]);
  });

  test("no warnings, no failures", () => {
    expect(failedAiFunctions(BOTH_FNS)).toEqual([]);
    expect(failedAiFunctions(BOTH_FNS, [])).toEqual([]);
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
