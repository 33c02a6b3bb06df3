import { z } from "zod";
import { Billing, ClientErrorCode, FieldIssue, MAX_BATCH_ITEMS, RelayErrorCode, describeIssues } from "../contract";
import { clipText } from "./cells";

/**
 * What a cell shows when there is no answer to lay out: an Excel error with a message that says what
 * to do. The functions turn it into `new CustomFunctions.Error(code, message)`; the task pane and the
 * CLI print the same text. The relay's code leads every message, then what the call cost
 * (`[STR_BUDGET_EXCEEDED] Not billed: …`), so one code reads the same in a cell, in the pane, in the
 * CLI and in the relay's log, and nobody is told "not billed" when nobody knows.
 *
 * Kinds: only #VALUE! and #N/A carry a custom message (#NUM!, #DIV/0! cannot; #REF! and #NAME? are
 * not allowed as a custom function's result at all), and the message is the point, so:
 * - "value" (#VALUE!): the formula's own inputs are wrong; editing them fixes it. These are exactly
 *   the codes the relay answers with 400 (a test holds the two tables together).
 * - "notAvailable" (#N/A): no answer for another reason (token, budget, relay, service, network);
 *   the fix is elsewhere, and the message says where.
 */
export type SheetErrorKind = "value" | "notAvailable";

/** What the cell shows for each kind (the value of CustomFunctions.ErrorCode's matching member). */
export const EXCEL_ERROR_TEXT: Readonly<Record<SheetErrorKind, string>> = { value: "#VALUE!", notAvailable: "#N/A" };

export interface SheetError {
  kind: SheetErrorKind;
  /** The relay's or client's code, or STR_VALIDATION for an argument the function refused itself. */
  code: string;
  /** For the cell: "[CODE] what happened and what to do", at most MAX_ERROR_MESSAGE characters. */
  message: string;
  /** The whole story for the task pane and the CLI, which have room: the original message as well. */
  detail: string;
}

/**
 * Longest message put in a cell's error. Excel shows it in the error flyout of the cell and does not
 * document a limit for custom functions; 255 characters is the classic limit of Excel's text in
 * dialogs and data validation messages, and keeps the flyout readable. Longer ones end in "…".
 */
export const MAX_ERROR_MESSAGE = 255;

/** How the cell states a call's bill, first after the code: the one wording for cells, pane and CLI. */
export const BILLING_LABEL: Readonly<Record<Billing, string>> = {
  "not-billed": "Not billed",
  billed: "Billed",
  unknown: "Billing unknown",
};

/**
 * What a code says: its kind, what the call cost, and what to do with what a new try costs. `advice`
 * null: the error's own message, which names the bad fields (validation and its kin).
 */
interface Advice {
  kind: SheetErrorKind;
  billing: Billing;
  advice: string | null;
}

const SETTINGS = "the STR task pane → Settings";
const RESEND = "refresh explicitly (STR task pane → Refresh) to resend it, billed again";
/** The relay finishes and keeps a call it had sent, whatever became of its caller. */
const KEPT = "a call the relay had sent is kept, so recalculating costs nothing more";

/**
 * Every code the relay or the client can fail with: what the cell says. A code missing here fails to
 * compile and fails a test; docs/errors.md shows the same billing per code (test/relay/errors-doc.test.ts).
 */
export const ERROR_ADVICE: Readonly<Record<RelayErrorCode | ClientErrorCode, Advice>> = {
  // 400s the user fixes in the formula.
  STR_VALIDATION: { kind: "value", billing: "not-billed", advice: null },
  STR_BAD_REQUEST: { kind: "value", billing: "not-billed", advice: null },
  STR_UPSTREAM_REJECTED: { kind: "value", billing: "not-billed", advice: null },
  STR_UNUSUAL_INPUT: { kind: "value", billing: "not-billed", advice: null },
  // The connection to the relay.
  STR_NOT_CONFIGURED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: `Not connected to a relay yet: open ${SETTINGS}, check the relay URL and paste the relay token.`,
  },
  STR_UNAUTHORIZED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: `The relay refused the token: open ${SETTINGS} and paste the relay token (the relay prints it at its first start).`,
  },
  STR_TOKEN_IN_URL: {
    kind: "notAvailable",
    billing: "not-billed",
    advice:
      "A relay token was sent in a URL: send it in the Authorization header only, and replace it in RELAY_TOKENS.",
  },
  STR_ORIGIN_NOT_ALLOWED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "The relay does not accept calls from this add-in's address: add it to RELAY_ALLOWED_ORIGINS on the relay.",
  },
  STR_HOST_NOT_ALLOWED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: `The relay does not answer to the host name in the relay URL: use its public URL in ${SETTINGS} (RELAY_PUBLIC_URL on the relay).`,
  },
  STR_NOT_FOUND: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: `The relay has no such route: check the relay URL in ${SETTINGS}, and that the relay is up to date.`,
  },
  STR_RELAY_UNREACHABLE: {
    kind: "notAvailable",
    billing: "unknown",
    advice: `Cannot reach the relay: is it running (str-relay), and is the URL in ${SETTINGS} right? ${capital(KEPT)}.`,
  },
  STR_RELAY_TIMEOUT: {
    kind: "notAvailable",
    billing: "unknown",
    advice: `The relay did not answer in time: check that it is running, then recalculate; ${KEPT}.`,
  },
  STR_RELAY_BAD_ANSWER: {
    kind: "notAvailable",
    billing: "unknown",
    advice: `The URL in ${SETTINGS} does not answer like the relay: check it. If a relay behind it had sent the call, it kept the answer.`,
  },
  STR_UNSUPPORTED_MEDIA_TYPE: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "The relay refused the request's format: the add-in and the relay may be different versions; update both.",
  },
  STR_CANCELLED: { kind: "notAvailable", billing: "unknown", advice: `Cancelled; ${KEPT}.` },
  // Computed in Excel from a stored analysis: nothing was sent; the message says why there is no answer.
  STR_TARGET_UNREACHABLE: { kind: "notAvailable", billing: "not-billed", advice: null },
  // Money and limits.
  STR_BUDGET_EXCEEDED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice:
      "Today's budget is spent: raise RELAY_BUDGET_USD_PER_DAY on the relay or wait until tomorrow. Nothing was sent.",
  },
  STR_CALLER_BUDGET_EXCEEDED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice:
      "Your token's own budget for today is spent: ask the relay's operator to raise it (RELAY_TOKEN_BUDGETS_USD_PER_DAY) or wait until tomorrow. Nothing was sent.",
  },
  STR_OUTCOME_UNKNOWN: {
    kind: "notAvailable",
    billing: "unknown",
    advice: `An identical earlier call was sent and its outcome is unknown: check usage in the STR task pane, then ${RESEND}.`,
  },
  STR_NOT_SENT: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "Not sent: it had no answer yet and none was being made. Run it again to buy it.",
  },
  STR_CALLER_RATE_LIMITED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "Too many requests from this token: recalculate in a moment; screen many rows at once from the task pane.",
  },
  STR_BODY_TOO_LARGE: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "The request is larger than the relay accepts: send fewer rows at a time, or shorter inputs.",
  },
  STR_BATCH_TOO_LARGE: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: `Too many items in one batch: send at most ${MAX_BATCH_ITEMS.toLocaleString("en-US")} at a time.`,
  },
  // The service behind the relay.
  STR_ANALYSIS_NOT_FOUND: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "No analysis with this id: use the Analysis id of an analysis made through this relay.",
  },
  STR_UPSTREAM_AUTH: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "The service refused the relay's API key: check STR_API_KEY on the relay.",
  },
  STR_UPSTREAM_THROTTLED: {
    kind: "notAvailable",
    billing: "not-billed",
    advice:
      "The service is throttling: recalculate later (billed only if it succeeds), or lower RELAY_UPSTREAM_RPS if others share the key.",
  },
  // Without the relay's word on the bill (an older relay), nobody can say it was not billed.
  STR_UPSTREAM_FAILED: {
    kind: "notAvailable",
    billing: "unknown",
    advice: `The service failed after it may have taken the request: check usage in the STR task pane, then ${RESEND}.`,
  },
  STR_UPSTREAM_BAD_ANSWER: {
    kind: "notAvailable",
    billing: "billed",
    advice:
      "The service billed the report but answered without an analysis: recalculate later (a new call, billed again); report it if it persists.",
  },
  STR_UPSTREAM_UNUSABLE: {
    kind: "notAvailable",
    billing: "billed",
    advice: `The service billed the report but its answer could not be used; it is not bought again on its own: ${RESEND}, and report it if it persists.`,
  },
  STR_UPSTREAM_TIMEOUT: {
    kind: "notAvailable",
    billing: "unknown",
    advice: `The service did not answer in time and may still have billed: check usage in the STR task pane, then ${RESEND}.`,
  },
  // The relay itself.
  STR_STORE_UNAVAILABLE: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "The relay's store is unavailable and nothing was sent: recalculate once it is back.",
  },
  STR_SHUTTING_DOWN: {
    kind: "notAvailable",
    billing: "not-billed",
    advice: "The relay is stopping and nothing was sent: recalculate in a moment.",
  },
  STR_INTERNAL: {
    kind: "notAvailable",
    billing: "unknown",
    advice: "An internal error in the relay or the add-in: recalculate; report it with the relay's log if it persists.",
  },
};

/** Codes whose bill depends on the call: what to say when the relay says how it ended (the error's `billing`). */
export const WHEN_RELAY_SAYS: Readonly<Partial<Record<RelayErrorCode, Partial<Record<Billing, string>>>>> = {
  // Asked again: the earlier, billed answer is told, and nothing more is bought.
  STR_UPSTREAM_UNUSABLE: {
    "not-billed": `An identical earlier call was billed but its answer could not be used; nothing was sent again: ${RESEND}.`,
  },
  STR_UPSTREAM_FAILED: {
    "not-billed":
      "The service failed or could not be reached: recalculate later; a new try is billed only if it succeeds.",
  },
};

/** The relay's error body, a RelayCallError, a RelayError: anything with a code and a message. */
const CodedError = z.looseObject({
  code: z.string(),
  message: z.string(),
  fields: z.array(FieldIssue).optional().catch(undefined),
  retryAfterSeconds: z.number().optional().catch(undefined),
  billing: Billing.optional().catch(undefined),
});
const WireError = z.looseObject({ success: z.literal(false), error: CodedError });

/** Any failure as what the cell shows. Unknown codes (a newer relay) keep their own message, as #N/A. */
export function sheetError(error: unknown): SheetError {
  const wire = WireError.safeParse(error);
  const coded = wire.success ? { success: true as const, data: wire.data.error } : CodedError.safeParse(error);
  if (!coded.success) {
    const text = error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error";
    return build(ERROR_ADVICE.STR_INTERNAL, "STR_INTERNAL", text);
  }
  const { code, message, fields, retryAfterSeconds, billing } = coded.data;
  const own = fields && fields.length > 0 ? describeIssues(fields) : message;
  const known = Object.prototype.hasOwnProperty.call(ERROR_ADVICE, code)
    ? ERROR_ADVICE[code as keyof typeof ERROR_ADVICE]
    : undefined;
  // A newer relay's code: its own words, and its word on the bill if it gave one.
  if (!known) return build({ kind: "notAvailable", billing: billing ?? "unknown", advice: null }, code, own);
  const said = billing === undefined ? undefined : WHEN_RELAY_SAYS[code as RelayErrorCode]?.[billing];
  const advice: Advice = said === undefined || billing === undefined ? known : { ...known, billing, advice: said };
  const wait =
    retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? ` Retry in ${Math.ceil(retryAfterSeconds)} s.` : "";
  return build(advice.advice === null ? advice : { ...advice, advice: advice.advice + wait }, code, own);
}

/**
 * An argument the function refused before sending anything: #VALUE! under the relay's validation
 * code, since the relay would have refused it with the same words.
 */
export function invalidArgument(problem: string | readonly FieldIssue[]): SheetError {
  return build(
    ERROR_ADVICE.STR_VALIDATION,
    "STR_VALIDATION",
    typeof problem === "string" ? problem : describeIssues(problem),
  );
}

/** "#N/A [STR_BUDGET_EXCEEDED] Today's budget …": the error as text, for a cell of a written table or a report line. */
export function errorText(error: SheetError): string {
  return `${EXCEL_ERROR_TEXT[error.kind]} ${error.message}`;
}

/**
 * "[CODE] Billing: advice": the billing first, so a message cut to fit a cell keeps it. A #VALUE!
 * names the inputs to change and nothing else: such a call is never billed, which docs/errors.md says.
 */
function build({ kind, billing, advice }: Advice, code: string, own: string): SheetError {
  const lead = kind === "value" ? `[${code}] ` : `[${code}] ${BILLING_LABEL[billing]}: `;
  const said = advice ?? own;
  const detail = advice === null || own === "" || own === advice ? `${lead}${said}` : `${lead}${advice} (${own})`;
  return { kind, code, message: clipText(`${lead}${said}`, MAX_ERROR_MESSAGE), detail };
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
