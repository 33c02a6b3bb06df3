import { ClientErrorCode, RelayErrorBody, RelayErrorCode } from "../../src/contract";
import { RelayCallError } from "../../src/client";
import { ERRORS } from "../../src/relay/errors";
import { ERROR_ADVICE, EXCEL_ERROR_TEXT, MAX_ERROR_MESSAGE, errorText, invalidArgument, sheetError } from "../../src/sheet";

/**
 * Every code the relay or the client can fail with becomes a cell error that keeps the code and
 * says what to do. The tables are walked from the contract's enums, so a new code without a
 * mapping fails here.
 */

const ALL_CODES = [...RelayErrorCode.options, ...ClientErrorCode.options];

describe("every code is mapped", () => {
  test.each(ALL_CODES)("%s has an entry", (code) => {
    expect(Object.keys(ERROR_ADVICE)).toContain(code);
  });

  test("the table has no code the contract does not know", () => {
    expect(Object.keys(ERROR_ADVICE).sort()).toEqual([...ALL_CODES].sort());
  });

  test.each(ALL_CODES)("%s: the message starts with the code, fits a cell's error and says something", (code) => {
    const error = sheetError(new RelayCallError(code, "x".repeat(400)));
    expect(error.code).toBe(code);
    expect(error.message.startsWith(`[${code}] `)).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
    expect(error.message.length).toBeGreaterThan(`[${code}] `.length + 5);
    expect(error.detail.startsWith(`[${code}] `)).toBe(true);
  });

  test.each(RelayErrorCode.options)("%s: #VALUE! exactly when the relay answers it with 400 (the caller's input is wrong)", (code) => {
    expect(sheetError({ code, message: "m" }).kind).toBe(ERRORS[code].status === 400 ? "value" : "notAvailable");
  });
});

describe("messages say what to do", () => {
  const messageOf = (code: string, message = "relay said so", extra: object = {}) => sheetError({ code, message, ...extra }).message;

  test("validation shows the field messages as #VALUE!", () => {
    const error = sheetError(
      new RelayCallError("STR_VALIDATION", "2 fields are invalid", {
        status: 400,
        fields: [
          { path: "bedrooms", message: "is required" },
          { path: "interestRatePercentage", message: "must be a number from 0 to 15 (percent); got 18" },
        ],
      }),
    );
    expect(error.kind).toBe("value");
    expect(error.message).toBe("[STR_VALIDATION] bedrooms is required; interestRatePercentage must be a number from 0 to 15 (percent); got 18");
    expect(errorText(error)).toBe(`#VALUE! ${error.message}`);
  });

  test("validation without fields shows the relay's message", () => {
    expect(messageOf("STR_UPSTREAM_REJECTED", "The service refused: address not found")).toBe("[STR_UPSTREAM_REJECTED] The service refused: address not found");
  });

  test("a bad token points to the task pane's settings", () => {
    expect(messageOf("STR_UNAUTHORIZED")).toMatch(/Open the STR task pane → Settings and paste the relay token/i);
    expect(messageOf("STR_NOT_CONFIGURED")).toMatch(/task pane → Settings.*paste the relay token/);
  });

  test("budget: raise the cap or wait", () => {
    expect(messageOf("STR_BUDGET_EXCEEDED")).toBe(
      "[STR_BUDGET_EXCEEDED] Today's budget is spent: raise RELAY_BUDGET_USD_PER_DAY on the relay or wait until tomorrow. Nothing was sent or billed.",
    );
  });

  test("unknown outcome: refresh explicitly to resend", () => {
    expect(messageOf("STR_OUTCOME_UNKNOWN")).toMatch(/refresh explicitly .* to resend/);
    expect(messageOf("STR_UPSTREAM_TIMEOUT")).toMatch(/may still have billed.*refresh explicitly/);
  });

  test("unreachable relay: is it running, is the URL right", () => {
    const error = sheetError(new RelayCallError("STR_RELAY_UNREACHABLE", "Could not reach the relay at http://localhost:8787 (fetch failed)."));
    expect(error.kind).toBe("notAvailable");
    expect(error.message).toMatch(/Cannot reach the relay: is it running/);
    // The pane and the CLI keep what the client saw.
    expect(error.detail).toContain("http://localhost:8787 (fetch failed)");
  });

  test("rate limits say when to retry", () => {
    expect(messageOf("STR_CALLER_RATE_LIMITED", "slow down", { retryAfterSeconds: 2.2 })).toMatch(/Retry in 3 s\.$/);
    expect(messageOf("STR_UPSTREAM_THROTTLED")).not.toMatch(/Retry in/);
  });

  test("the relay's wire error body reads the same as the client's error", () => {
    const body: RelayErrorBody = { success: false, error: { code: "STR_BUDGET_EXCEEDED", message: "Today's budget of $5.00 would be passed" } };
    expect(sheetError(body)).toEqual(sheetError(new RelayCallError("STR_BUDGET_EXCEEDED", "Today's budget of $5.00 would be passed")));
  });

  test("a code this add-in does not know keeps its own message, as #N/A", () => {
    expect(sheetError({ code: "STR_SOMETHING_NEW", message: "A newer relay's reason." })).toEqual({
      kind: "notAvailable",
      code: "STR_SOMETHING_NEW",
      message: "[STR_SOMETHING_NEW] A newer relay's reason.",
      detail: "[STR_SOMETHING_NEW] A newer relay's reason.",
    });
  });

  test("anything else thrown is an internal error that still reads as one", () => {
    for (const thrown of [new TypeError("x is undefined"), "broken", 42, undefined]) {
      const error = sheetError(thrown);
      expect(error.kind).toBe("notAvailable");
      expect(error.message).toMatch(/^\[STR_INTERNAL\] /);
    }
    expect(sheetError(new TypeError("x is undefined")).detail).toContain("x is undefined");
  });

  test("a long message is cut to fit, ending in an ellipsis", () => {
    const error = sheetError({ code: "STR_VALIDATION", message: "word ".repeat(100) });
    expect(error.message).toHaveLength(MAX_ERROR_MESSAGE);
    expect(error.message.endsWith("…")).toBe(true);
    expect(error.detail.length).toBeGreaterThan(MAX_ERROR_MESSAGE);
  });

  test("the Excel error texts are CustomFunctions.ErrorCode's values", () => {
    expect(EXCEL_ERROR_TEXT).toEqual({ value: "#VALUE!", notAvailable: "#N/A" });
  });
});

describe("arguments the function refuses itself", () => {
  test("field issues become #VALUE! under the relay's validation code", () => {
    expect(invalidArgument([{ path: "bedrooms", message: "must be a whole number from 0 to 50; got -1" }])).toEqual({
      kind: "value",
      code: "STR_VALIDATION",
      message: "[STR_VALIDATION] bedrooms must be a whole number from 0 to 50; got -1",
      detail: "[STR_VALIDATION] bedrooms must be a whole number from 0 to 50; got -1",
    });
  });

  test("a message (from parseFieldList or maxRows) is kept as it is", () => {
    expect(invalidArgument("maxRows must be a whole number of 1 or more; got 0").message).toBe("[STR_VALIDATION] maxRows must be a whole number of 1 or more; got 0");
  });
});
