import { Billing, FieldIssue, describeIssues } from "../src/contract";
import { BILLING_LABEL, ERROR_ADVICE, WHEN_RELAY_SAYS, sheetError } from "../src/sheet";

/** A problem the pane explains in its own words (a selection without a header row, a full target area). */
export class PaneError extends Error {
  override readonly name = "PaneError";
}

/**
 * Whether the action that failed could have bought anything: "free" for reading, pricing, testing
 * the connection and Spend (nothing is ever sent to the service, so nothing is said about billing);
 * "may-bill" for a run, where the pane says what the failed call cost, as the cells do.
 */
export type ActionCost = "free" | "may-bill";

/**
 * The pane's own words for the codes whose cell advice points at the pane itself, at the relay's
 * terminal or at its settings: an investor in the pane reads what to do here, in this pane.
 * `kept` is said only after a run: what became of a call the relay had already sent.
 */
const PANE_ADVICE: Partial<Record<keyof typeof ERROR_ADVICE, string>> = {
  STR_NOT_CONFIGURED: "Not connected yet: enter your relay's address and token in Settings, then Save.",
  STR_UNAUTHORIZED: "Your relay did not accept the token: paste it again in Settings.",
  STR_RELAY_UNREACHABLE:
    "Cannot reach your relay: check that it is running and that the relay URL in Settings is right, then try again.",
  STR_RELAY_TIMEOUT: "Your relay did not answer in time: check that it is running, then try again.",
  STR_RELAY_BAD_ANSWER: "The relay URL in Settings does not answer like an STR relay: check it.",
  STR_HOST_NOT_ALLOWED: "Your relay does not answer to this address: use its public URL in Settings.",
  STR_NOT_FOUND:
    "Your relay does not know this request: check the relay URL in Settings, and that the relay is up to date.",
  STR_ORIGIN_NOT_ALLOWED:
    "Your relay does not accept calls from this add-in's address: ask whoever runs it to allow it.",
  STR_TOKEN_IN_URL: "This token was sent where it could be logged: ask whoever runs your relay for a new one.",
  STR_CALLER_RATE_LIMITED: "Too many requests from this token at once: try again in a moment.",
  STR_STORE_UNAVAILABLE: "Your relay cannot reach its store just now, so nothing was sent: try again in a moment.",
  STR_SHUTTING_DOWN: "Your relay is restarting, so nothing was sent: try again in a moment.",
  STR_UPSTREAM_AUTH: "The analysis service refused your relay's key: ask whoever runs your relay to check it.",
  STR_UPSTREAM_THROTTLED:
    "The analysis service is busy: try again in a few minutes; a call is billed only when it succeeds.",
  STR_UPSTREAM_BAD_ANSWER:
    "The analysis service billed the report but sent no analysis: try again later (a new call, billed again); tell whoever runs your relay if it persists.",
  STR_INTERNAL:
    "Something went wrong in the relay or the add-in: try again; tell whoever runs your relay if it persists.",
  STR_CANCELLED: "Cancelled.",
  STR_BUDGET_EXCEEDED:
    "Today's budget is spent, so nothing was sent: try again tomorrow, or ask whoever runs your relay to raise the daily budget.",
  STR_CALLER_BUDGET_EXCEEDED:
    "Your daily budget is spent, so nothing was sent: try again tomorrow, or ask whoever runs your relay to raise your budget.",
  STR_OUTCOME_UNKNOWN:
    "An identical earlier call was sent and its outcome is unknown: check the Spend tab, then use Refresh to send it again (billed again).",
  STR_UPSTREAM_TIMEOUT:
    "The analysis service did not answer in time and may still have billed: check the Spend tab, then use Refresh to send it again (billed again).",
};

/** After a run: what the relay does with a call it had already sent when the pane lost it. */
const KEPT = "A call the relay had already sent is finished and kept: running this again costs nothing more for it.";
const KEEPS: ReadonlySet<string> = new Set(["STR_RELAY_UNREACHABLE", "STR_RELAY_TIMEOUT", "STR_CANCELLED"]);
/**
 * Codes whose own message adds nothing an investor can act on (a network library's words, the
 * relay's settings): the pane's advice says it all. A settings problem (which field is wrong) and
 * an internal error (what broke, for support) keep theirs.
 */
const OWN_WORDS_HIDDEN: ReadonlySet<string> = new Set(
  Object.keys(PANE_ADVICE).filter((code) => code !== "STR_NOT_CONFIGURED" && code !== "STR_INTERNAL"),
);

/**
 * Any failure as the pane shows it: its own words; the relay's and the client's errors in the
 * pane's words, the code last so support can find it ("… (STR_RELAY_UNREACHABLE)"); billing only
 * where a call may have been sent; Excel's own errors (OfficeExtension.Error) named as Excel's.
 */
export function describeError(error: unknown, action: ActionCost = "free"): string {
  if (error instanceof PaneError) return error.message;
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const isOffice =
    typeof code === "string" && !code.startsWith("STR_") && error instanceof Error && error.name === "RichApi.Error";
  if (isOffice) return `Excel refused: ${error.message} (${code})`;
  const e = sheetError(error);
  const known = Object.prototype.hasOwnProperty.call(ERROR_ADVICE, e.code)
    ? ERROR_ADVICE[e.code as keyof typeof ERROR_ADVICE]
    : undefined;
  const paneAdvice = PANE_ADVICE[e.code as keyof typeof PANE_ADVICE];
  const own = ownWords(error);
  const billing = (Object.keys(BILLING_LABEL) as Billing[]).find((b) =>
    e.detail.startsWith(`[${e.code}] ${BILLING_LABEL[b]}: `),
  );
  // Where the relay said how the call ended, the cell's advice for that ending (WHEN_RELAY_SAYS).
  const said = billing && WHEN_RELAY_SAYS[e.code as keyof typeof WHEN_RELAY_SAYS]?.[billing];
  const cellAdvice = said ?? known?.advice;
  const advice = paneAdvice ?? (cellAdvice ? paneWording(cellAdvice) : own);
  const story = [
    advice,
    action === "may-bill" && KEEPS.has(e.code) ? KEPT : "",
    !OWN_WORDS_HIDDEN.has(e.code) && own && own !== advice ? `(${own})` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const lead = action === "may-bill" && e.kind === "notAvailable" && billing ? `${BILLING_LABEL[billing]}: ` : "";
  return `${lead}${story} (${e.code})`;
}

/** The relay's own words on the failure (the fields it names, else its message), as the cell reads them. */
function ownWords(error: unknown): string {
  if (typeof error === "string") return error;
  if (typeof error !== "object" || error === null) return "";
  const wire = (error as { success?: unknown; error?: unknown }).success === false;
  const coded = (wire ? (error as { error: unknown }).error : error) as { message?: unknown; fields?: unknown };
  if (Array.isArray(coded.fields) && coded.fields.length > 0) return describeIssues(coded.fields as FieldIssue[]);
  return typeof coded.message === "string" ? coded.message : "";
}

/** Cell advice points at "the STR task pane": in the pane, that is here. */
function paneWording(advice: string): string {
  return advice
    .replace(/the STR task pane → Settings/g, "Settings")
    .replace(/\(STR task pane → Refresh\)/g, "(the Refresh tab)")
    .replace(/check usage in the STR task pane/g, "check the Spend tab")
    .replace(/\brecalculate\b/g, "try again")
    .replace(/screen many rows at once from the task pane/g, "screen many rows at once from the Screen tab");
}
