import { ClientErrorCode, RelayErrorBody, RelayErrorCode } from "../../src/contract";
import { RelayCallError } from "../../src/client";
import { ERRORS } from "../../src/relay/relay-errors";
import {
  BILLING_LABEL,
  ERROR_ADVICE,
  EXCEL_ERROR_TEXT,
  MAX_ERROR_MESSAGE,
  errorText,
  invalidArgument,
  sheetError,
} from "../../src/sheet";

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

  test.each(RelayErrorCode.options)(
    "%s: #VALUE! exactly when the relay answers it with 400 (the caller's input is wrong)",
    (code) => {
      expect(sheetError({ code, message: "m" }).kind).toBe(ERRORS[code].status === 400 ? "value" : "notAvailable");
    },
  );
});

describe("messages say what to do", () => {
  const messageOf = (code: string, message = "relay said so", extra: object = {}) =>
    sheetError({ code, message, ...extra }).message;

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
    expect(error.message).toBe(
      "[STR_VALIDATION] bedrooms is required; interestRatePercentage must be a number from 0 to 15 (percent); got 18",
    );
    expect(errorText(error)).toBe(`#VALUE! ${error.message}`);
  });

  test("validation without fields shows the relay's message", () => {
    expect(messageOf("STR_UPSTREAM_REJECTED", "The service refused: address not found")).toBe(
      "[STR_UPSTREAM_REJECTED] The service refused: address not found",
    );
  });

  test("a bad token points to the task pane's settings", () => {
    expect(messageOf("STR_UNAUTHORIZED")).toMatch(/Open the STR task pane → Settings and paste the relay token/i);
    expect(messageOf("STR_NOT_CONFIGURED")).toMatch(/task pane → Settings.*paste the relay token/);
  });

  test("budget: raise the cap or wait", () => {
    expect(messageOf("STR_BUDGET_EXCEEDED")).toBe(
      "[STR_BUDGET_EXCEEDED] Not billed: Today's budget is spent: raise RELAY_BUDGET_USD_PER_DAY on the relay or wait until tomorrow. Nothing was sent.",
    );
  });

  test("unknown outcome: refresh explicitly to resend", () => {
    expect(messageOf("STR_OUTCOME_UNKNOWN")).toMatch(/refresh explicitly .* to resend/);
    expect(messageOf("STR_UPSTREAM_TIMEOUT")).toMatch(/may still have billed.*refresh explicitly/);
  });

  test("unreachable relay: is it running, is the URL right", () => {
    const error = sheetError(
      new RelayCallError("STR_RELAY_UNREACHABLE", "Could not reach the relay at http://localhost:8787 (fetch failed)."),
    );
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
    const body: RelayErrorBody = {
      success: false,
      error: { code: "STR_BUDGET_EXCEEDED", message: "Today's budget of $5.00 would be passed" },
    };
    expect(sheetError(body)).toEqual(
      sheetError(new RelayCallError("STR_BUDGET_EXCEEDED", "Today's budget of $5.00 would be passed")),
    );
  });

  test("a code this add-in does not know keeps its own message, as #N/A", () => {
    expect(sheetError({ code: "STR_SOMETHING_NEW", message: "A newer relay's reason." })).toEqual({
      kind: "notAvailable",
      code: "STR_SOMETHING_NEW",
      message: "[STR_SOMETHING_NEW] Billing unknown: A newer relay's reason.",
      detail: "[STR_SOMETHING_NEW] Billing unknown: A newer relay's reason.",
    });
    expect(sheetError({ code: "STR_SOMETHING_NEW", message: "m", billing: "not-billed" }).message).toBe(
      "[STR_SOMETHING_NEW] Not billed: m",
    );
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
    expect(invalidArgument("maxRows must be a whole number of 1 or more; got 0").message).toBe(
      "[STR_VALIDATION] maxRows must be a whole number of 1 or more; got 0",
    );
  });
});

describe("what a failed call cost, said first and the same wherever it is shown", () => {
  const unknownCodes = ALL_CODES.filter((code) => ERROR_ADVICE[code].billing === "unknown");

  test.each(ALL_CODES.filter((code) => ERROR_ADVICE[code].kind === "notAvailable"))(
    "%s: the cell's message and the pane's and CLI's detail lead with the code and its billing",
    (code) => {
      const error = sheetError(new RelayCallError(code, "the relay's own words"));
      const lead = `[${code}] ${BILLING_LABEL[ERROR_ADVICE[code].billing]}: `;
      expect(error.message.startsWith(lead)).toBe(true);
      expect(error.detail.startsWith(lead)).toBe(true);
    },
  );

  test("a code whose billing is unknown never says it was not billed", () => {
    expect(unknownCodes).toEqual(
      expect.arrayContaining(["STR_OUTCOME_UNKNOWN", "STR_UPSTREAM_TIMEOUT", "STR_UPSTREAM_FAILED"]),
    );
    for (const code of unknownCodes)
      expect(`${code}: ${sheetError({ code, message: "m" }).message}`).not.toMatch(
        /not billed|nothing was (sent|billed)/i,
      );
  });

  test("STR_UPSTREAM_FAILED says what the relay knows of the bill, and unknown when the relay does not say", () => {
    const failed = (billing?: string) =>
      sheetError({ code: "STR_UPSTREAM_FAILED", message: "m", ...(billing ? { billing } : {}) }).message;
    expect(failed("not-billed")).toMatch(
      /^\[STR_UPSTREAM_FAILED\] Not billed: .*recalculate later; a new try is billed only if it succeeds/,
    );
    expect(failed("unknown")).toMatch(/^\[STR_UPSTREAM_FAILED\] Billing unknown: .*refresh explicitly .* billed again/);
    expect(failed()).toBe(failed("unknown"));
    // The relay's word on the bill travels through the client's error too.
    const body: RelayErrorBody = {
      success: false,
      error: { code: "STR_UPSTREAM_FAILED", message: "m", billing: "not-billed" },
    };
    expect(sheetError(RelayCallError.fromBody(502, body)).message).toBe(failed("not-billed"));
  });

  test("a billed failure says so, and that a new try is billed again", () => {
    expect(sheetError({ code: "STR_UPSTREAM_BAD_ANSWER", message: "m" }).message).toMatch(
      /^\[STR_UPSTREAM_BAD_ANSWER\] Billed: .*billed again/,
    );
  });
});
