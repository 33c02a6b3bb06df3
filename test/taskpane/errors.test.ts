import { RelayCallError } from "../../src/client";
import { ERROR_ADVICE } from "../../src/sheet";
import { PaneError, describeError } from "../../taskpane/pane-error";

/** How the pane words a failure: billing only after a run, investor words, the code last. */
describe("the pane's error messages", () => {
  const unreachable = new RelayCallError("STR_RELAY_UNREACHABLE", "fetch failed");

  test("the relay is down during a free action (test connection, Spend, an estimate): what to check, no billing words", () => {
    const text = describeError(unreachable, "free");
    expect(text).toBe(
      "Cannot reach your relay: check that it is running and that the relay URL in Settings is right, then try again. (STR_RELAY_UNREACHABLE)",
    );
    expect(text).not.toMatch(/bill|kept|fetch failed/i);
    // Free is the default: a view that does not say (the comparables viewer) never speaks of billing.
    expect(describeError(unreachable)).toBe(text);
  });

  test("the relay is lost during a run: the billing word leads, and what became of a call already sent", () => {
    expect(describeError(unreachable, "may-bill")).toBe(
      "Billing unknown: Cannot reach your relay: check that it is running and that the relay URL in Settings is right, then try again. A call the relay had already sent is finished and kept: running this again costs nothing more for it. (STR_RELAY_UNREACHABLE)",
    );
  });

  test("a budget refusal in a run says budget, not billed, and what to do", () => {
    const spent = { success: false, error: { code: "STR_CALLER_BUDGET_EXCEEDED", message: "Caller budget exceeded." } };
    expect(describeError(spent, "may-bill")).toBe(
      "Not billed: Your daily budget is spent, so nothing was sent: try again tomorrow, or ask whoever runs your relay to raise your budget. (STR_CALLER_BUDGET_EXCEEDED)",
    );
  });

  test("a bad value: the fields in the relay's words, never a billing word", () => {
    const invalid = new RelayCallError("STR_VALIDATION", "Invalid", {
      fields: [{ path: "Price", message: "must be above 0" }],
    });
    expect(describeError(invalid, "may-bill")).toMatch(/^Price must be above 0.* \(STR_VALIDATION\)$/);
    expect(describeError(invalid, "may-bill")).not.toMatch(/bill/i);
  });

  test.each(Object.keys(ERROR_ADVICE))(
    "%s speaks to an investor in the pane: no terminal, command, environment variable or 'task pane'",
    (code) => {
      for (const action of ["free", "may-bill"] as const) {
        const text = describeError(new RelayCallError(code, "x"), action).replace(` (${code})`, "");
        expect(text).not.toMatch(/npx|npm |terminal|task pane|RELAY_[A-Z]|STR_[A-Z]|recalculat/i);
      }
    },
  );

  test.each([
    "STR_NOT_CONFIGURED",
    "STR_UNAUTHORIZED",
    "STR_RELAY_UNREACHABLE",
    "STR_RELAY_TIMEOUT",
    "STR_RELAY_BAD_ANSWER",
    "STR_HOST_NOT_ALLOWED",
    "STR_NOT_FOUND",
    "STR_ORIGIN_NOT_ALLOWED",
    "STR_CALLER_RATE_LIMITED",
    "STR_STORE_UNAVAILABLE",
    "STR_SHUTTING_DOWN",
    "STR_CANCELLED",
  ])("%s, met by a free action, says nothing about billing", (code) => {
    expect(describeError(new RelayCallError(code, "x"), "free")).not.toMatch(/bill/i);
  });

  test("the pane's own problems keep their words", () => {
    expect(describeError(new PaneError("Select a table first."))).toBe("Select a table first.");
  });
});

test("a settings problem and an internal error keep their own words, for the investor and for support", () => {
  expect(describeError(new RelayCallError("STR_NOT_CONFIGURED", "The relay URL must start with https://."))).toBe(
    "Not connected yet: enter your relay's address and token in Settings, then Save. (The relay URL must start with https://.) (STR_NOT_CONFIGURED)",
  );
  expect(describeError(new Error("boom"))).toMatch(/^Something went wrong .* \(boom\) \(STR_INTERNAL\)$/);
});

test("where the relay says how a call ended, the pane follows it (the service unreachable: not billed)", () => {
  const failed = new RelayCallError("STR_UPSTREAM_FAILED", "Service unavailable.", { billing: "not-billed" });
  expect(describeError(failed, "may-bill")).toMatch(
    /^Not billed: .*billed only if it succeeds\. \(Service unavailable\.\) \(STR_UPSTREAM_FAILED\)$/,
  );
  expect(describeError(new RelayCallError("STR_UPSTREAM_FAILED", "x"), "may-bill")).toMatch(
    /^Billing unknown: .*check the Spend tab, then refresh explicitly \(the Refresh tab\) to resend it, billed again/,
  );
});
