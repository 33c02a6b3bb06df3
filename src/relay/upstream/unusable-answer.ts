import { RelayError } from "../relay-errors";

/*
 * A billed answer the relay cannot use (the service's envelope saying success, with no analysis, an
 * id outside the rule, or cut short) is an outcome of its request like any other: the ledger keeps
 * it, under its code and a sample of what came (redacted, cut to a line), and the same request is
 * answered with it rather than bought again, until it is refreshed explicitly. The sample lives in
 * the ledger row's error_code, after the code, so both stores keep it without a column of their own.
 */

export const UNUSABLE_CODE = "STR_UPSTREAM_UNUSABLE";

/** Longest sample kept: enough for support to see what the service sent. */
export const SAMPLE_CHARS = 300;

/** What the ledger row's error_code holds for such an answer. */
export function unusableNote(sample: string, redact: (text: string) => string): string {
  const line = redact(sample).replace(/\s+/g, " ").trim();
  return `${UNUSABLE_CODE} ${line.length > SAMPLE_CHARS ? `${line.slice(0, SAMPLE_CHARS - 3)}...` : line}`.trim();
}

/** True when a ledger row's error_code says its billed answer was unusable. */
export function isUnusableNote(errorCode: string | undefined): boolean {
  return errorCode === UNUSABLE_CODE || (errorCode?.startsWith(`${UNUSABLE_CODE} `) ?? false);
}

/** The error a repeat of the request is answered with: nothing sent, nothing billed now. */
export function unusableRepeat(errorCode: string | undefined): RelayError {
  const sample = (errorCode ?? "").slice(UNUSABLE_CODE.length).trim();
  return new RelayError(
    UNUSABLE_CODE,
    `An earlier call for this request was billed, but the service's answer could not be used${sample ? ` (${sample})` : ""}. It is not bought again on its own: nothing was sent or billed now. Refresh explicitly to buy it again.`,
    { billing: "not-billed" },
  );
}
