import { z } from "zod";
import { ClientErrorCode, FieldIssue, MAX_BATCH_ITEMS, RelayErrorCode, describeIssues } from "../contract";
import { clipText } from "./cells";

/**
 * What a cell shows when there is no answer to lay out: an Excel error with a message that says what
 * to do. The functions turn it into `new CustomFunctions.Error(code, message)`; the task pane and the
 * CLI print the same text. The relay's code leads every message (`[STR_BUDGET_EXCEEDED] …`), so one
 * code reads the same in a cell, in the pane, in the CLI and in the relay's log.
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

/** null: show the error's own message, which names the bad fields (validation and its kin). */
interface Advice {
  kind: SheetErrorKind;
  advice: string | null;
}

const SETTINGS = "the STR task pane → Settings";

/** Every code the relay or the client can fail with: what the cell says. A code missing here fails to compile and fails a test. */
export const ERROR_ADVICE: Readonly<Record<RelayErrorCode | ClientErrorCode, Advice>> = {
  // 400s the user fixes in the formula.
  STR_VALIDATION: { kind: "value", advice: null },
  STR_BAD_REQUEST: { kind: "value", advice: null },
  STR_UPSTREAM_REJECTED: { kind: "value", advice: null },
  STR_UNUSUAL_INPUT: { kind: "value", advice: null },
  // The connection to the relay.
  STR_NOT_CONFIGURED: { kind: "notAvailable", advice: `Not connected to a relay yet: open ${SETTINGS}, check the relay URL and paste the relay token.` },
  STR_UNAUTHORIZED: { kind: "notAvailable", advice: `The relay refused the token: open ${SETTINGS} and paste the relay token (the relay prints it at its first start).` },
  STR_TOKEN_IN_URL: { kind: "notAvailable", advice: "A relay token was sent in a URL: send it in the Authorization header only, and replace it in RELAY_TOKENS." },
  STR_ORIGIN_NOT_ALLOWED: { kind: "notAvailable", advice: "The relay does not accept calls from this add-in's address: add it to RELAY_ALLOWED_ORIGINS on the relay." },
  STR_NOT_FOUND: { kind: "notAvailable", advice: `The relay has no such route: check the relay URL in ${SETTINGS}, and that the relay is up to date.` },
  STR_RELAY_UNREACHABLE: { kind: "notAvailable", advice: `Cannot reach the relay: is it running (npx str-relay), and is the URL in ${SETTINGS} right?` },
  STR_RELAY_TIMEOUT: { kind: "notAvailable", advice: "The relay did not answer in time: check that it is running, then recalculate." },
  STR_RELAY_BAD_ANSWER: { kind: "notAvailable", advice: `The URL in ${SETTINGS} does not answer like the relay: check it.` },
  STR_UNSUPPORTED_MEDIA_TYPE: { kind: "notAvailable", advice: "The relay refused the request's format: the add-in and the relay may be different versions; update both." },
  STR_CANCELLED: { kind: "notAvailable", advice: "Cancelled." },
  // Money and limits.
  STR_BUDGET_EXCEEDED: { kind: "notAvailable", advice: "Today's budget is spent: raise RELAY_BUDGET_USD_PER_DAY on the relay or wait until tomorrow. Nothing was sent or billed." },
  STR_OUTCOME_UNKNOWN: { kind: "notAvailable", advice: "An identical earlier call may have been billed but its outcome is unknown: refresh explicitly (STR task pane → Refresh) to resend it." },
  STR_CALLER_RATE_LIMITED: { kind: "notAvailable", advice: "Too many requests from this token: recalculate in a moment; screen many rows at once from the task pane." },
  STR_BODY_TOO_LARGE: { kind: "notAvailable", advice: "The request is larger than the relay accepts: send fewer rows at a time, or shorter inputs." },
  STR_BATCH_TOO_LARGE: { kind: "notAvailable", advice: `Too many items in one batch: send at most ${MAX_BATCH_ITEMS.toLocaleString("en-US")} at a time.` },
  // The service behind the relay.
  STR_ANALYSIS_NOT_FOUND: { kind: "notAvailable", advice: "No analysis with this id: use the Analysis id of an analysis made through this relay." },
  STR_UPSTREAM_AUTH: { kind: "notAvailable", advice: "The service refused the relay's API key: check STR_API_KEY on the relay. Nothing was billed." },
  STR_UPSTREAM_THROTTLED: { kind: "notAvailable", advice: "The service is throttling (not billed): recalculate later, or lower RELAY_UPSTREAM_RPS if others share the key." },
  STR_UPSTREAM_FAILED: { kind: "notAvailable", advice: "The service failed or could not be reached (not billed): recalculate later." },
  STR_UPSTREAM_BAD_ANSWER: { kind: "notAvailable", advice: "The service answered in a form the relay cannot read: recalculate later; report it if it persists." },
  STR_UPSTREAM_TIMEOUT: {
    kind: "notAvailable",
    advice: "The service did not answer in time and may still have billed: check usage in the STR task pane, then refresh explicitly to resend.",
  },
  // The relay itself.
  STR_STORE_UNAVAILABLE: { kind: "notAvailable", advice: "The relay's store is unavailable (nothing was sent): recalculate once it is back." },
  STR_SHUTTING_DOWN: { kind: "notAvailable", advice: "The relay is stopping (nothing was sent): recalculate in a moment." },
  STR_INTERNAL: { kind: "notAvailable", advice: "An internal error in the relay or the add-in: recalculate; report it with the relay's log if it persists." },
};

/** The relay's error body, a RelayCallError, a RelayError: anything with a code and a message. */
const CodedError = z.looseObject({
  code: z.string(),
  message: z.string(),
  fields: z.array(FieldIssue).optional().catch(undefined),
  retryAfterSeconds: z.number().optional().catch(undefined),
});
const WireError = z.looseObject({ success: z.literal(false), error: CodedError });

/** Any failure as what the cell shows. Unknown codes (a newer relay) keep their own message, as #N/A. */
export function sheetError(error: unknown): SheetError {
  const wire = WireError.safeParse(error);
  const coded = wire.success ? { success: true as const, data: wire.data.error } : CodedError.safeParse(error);
  if (!coded.success) {
    const text = error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error";
    return build("notAvailable", "STR_INTERNAL", text, ERROR_ADVICE.STR_INTERNAL.advice);
  }
  const { code, message, fields, retryAfterSeconds } = coded.data;
  const known = Object.prototype.hasOwnProperty.call(ERROR_ADVICE, code) ? ERROR_ADVICE[code as keyof typeof ERROR_ADVICE] : undefined;
  const own = fields && fields.length > 0 ? describeIssues(fields) : message;
  if (!known) return build("notAvailable", code, own, null);
  const wait = retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? ` Retry in ${Math.ceil(retryAfterSeconds)} s.` : "";
  return build(known.kind, code, own, known.advice === null ? null : known.advice + wait);
}

/**
 * An argument the function refused before sending anything: #VALUE! under the relay's validation
 * code, since the relay would have refused it with the same words.
 */
export function invalidArgument(problem: string | readonly FieldIssue[]): SheetError {
  return build("value", "STR_VALIDATION", typeof problem === "string" ? problem : describeIssues(problem), null);
}

/** "#N/A [STR_BUDGET_EXCEEDED] Today's budget …": the error as text, for a cell of a written table or a report line. */
export function errorText(error: SheetError): string {
  return `${EXCEL_ERROR_TEXT[error.kind]} ${error.message}`;
}

function build(kind: SheetErrorKind, code: string, own: string, advice: string | null): SheetError {
  const said = advice ?? own;
  const detail = advice === null || own === "" || own === advice ? `[${code}] ${said}` : `[${code}] ${advice} (${own})`;
  return { kind, code, message: clipText(`[${code}] ${said}`, MAX_ERROR_MESSAGE), detail };
}
