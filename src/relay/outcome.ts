import {
  AnyRequest,
  Billing,
  Charge,
  NO_CHARGE,
  NormalizedEnvelope,
  Operation,
  chargeFor,
  isCreate,
  maxCharge,
  normalizeEnvelope,
} from "../contract";
import { RelayError } from "./errors";
import { CallState } from "./store/store";
import { UpstreamResult } from "./upstream";

/**
 * What a finished call means for the ledger and for the caller. The billing side follows the
 * spec: a successful create is billed 0.20 USD plus 0.10 per completed AI function; validation
 * errors and failed requests are free; where the relay cannot know, the call is "unknown" and held
 * at its most against the budget.
 */
export type Outcome =
  | { state: "billed" | "free"; status: number; charge: Charge; envelope: NormalizedEnvelope }
  | { state: Exclude<CallState, "pending">; status: number | undefined; charge: Charge; error: RelayError };

/** The ledger's state as what the caller is told of the bill (the error body's `billing`). */
const BILLING: Readonly<Record<Outcome["state"], Billing>> = {
  billed: "billed",
  free: "not-billed",
  failed: "not-billed",
  unknown: "unknown",
};

/**
 * Whether the same request may be sent again without the user asking for it (a refresh): not after
 * a call whose outcome is unknown, which the service may have billed — sending it again could bill twice.
 */
export function resendAllowed(state: CallState | undefined): boolean {
  return state !== "unknown";
}

export function outcomeOf(
  op: Operation,
  request: AnyRequest,
  result: UpstreamResult,
  redact: (text: string) => string,
): Outcome {
  const outcome = classify(op, request, result, redact);
  if (!("error" in outcome)) return outcome;
  const { error } = outcome;
  return { ...outcome, error: new RelayError(error.code, error.message, { billing: BILLING[outcome.state] }) };
}

function classify(
  op: Operation,
  request: AnyRequest,
  result: UpstreamResult,
  redact: (text: string) => string,
): Outcome {
  if (result.kind === "failure") {
    const { failure } = result;
    if (!failure.sent) {
      return {
        state: "failed",
        status: undefined,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_UPSTREAM_FAILED",
          `Could not reach the service: ${redact(failure.message)}. Nothing was billed.`,
        ),
      };
    }
    const error =
      failure.code === "UPSTREAM_TIMEOUT"
        ? new RelayError(
            "STR_UPSTREAM_TIMEOUT",
            "The service did not answer in time after the request was sent; it may still have created (and billed) the report. Refresh explicitly to send it again.",
          )
        : new RelayError(
            "STR_UPSTREAM_FAILED",
            `${redact(failure.message)}; the service may have processed the request. Refresh explicitly to send it again.`,
          );
    return { state: "unknown", status: undefined, charge: maxCharge(op, request), error };
  }

  const { status, body } = result;
  if (status >= 200 && status < 300) {
    const envelope = normalizeEnvelope(body, status);
    const charge = chargeFor(op, request, {
      succeeded: true,
      hasData: envelope.data !== undefined,
      warnings: envelope.warnings,
    });
    // A create always returns its analysis; one without is an answer the relay cannot use, though billed.
    if (isCreate(op) && !envelope.data) {
      return {
        state: "billed",
        status,
        charge,
        error: new RelayError(
          "STR_UPSTREAM_BAD_ANSWER",
          `The service answered ${status} without an analysis (${describe(body, redact)}); the report was billed.`,
        ),
      };
    }
    return { state: charge.cents > 0 ? "billed" : "free", status, charge, envelope };
  }

  const message = redact(upstreamMessage(body));
  const said = message ? `: ${message}` : "";
  switch (true) {
    case status === 400 || status === 422 || status === 413:
      return {
        state: "free",
        status,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_UPSTREAM_REJECTED",
          `The service refused the request (${status})${said}. Not billed.`,
        ),
      };
    case status === 401 || status === 403:
      return {
        state: "free",
        status,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_UPSTREAM_AUTH",
          `The service refused the relay's API key (${status}). Check STR_API_KEY.`,
        ),
      };
    case status === 404 && op === "enhance":
      return {
        state: "free",
        status,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_ANALYSIS_NOT_FOUND",
          `The service has no analysis ${(request as { analysisId: string }).analysisId} for this key${said}.`,
        ),
      };
    case status === 429:
      return {
        state: "free",
        status,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_UPSTREAM_THROTTLED",
          "The service kept throttling the relay past its time limit. Not billed; retry later.",
        ),
      };
    case status === 502 || status === 504 || status >= 520:
      // Gateway answers: the service behind the gateway may have done the work.
      return {
        state: "unknown",
        status,
        charge: maxCharge(op, request),
        error: new RelayError(
          status === 504 ? "STR_UPSTREAM_TIMEOUT" : "STR_UPSTREAM_FAILED",
          `The service's gateway answered ${status}${said}; the request may have been processed. Refresh explicitly to send it again.`,
        ),
      };
    case status >= 500:
      return {
        state: "failed",
        status,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_UPSTREAM_FAILED",
          `The service failed (${status})${said}. Failed requests are not billed.`,
        ),
      };
    default:
      return {
        state: "free",
        status,
        charge: NO_CHARGE,
        error: new RelayError(
          "STR_UPSTREAM_FAILED",
          `The service answered ${status}${said}. Check STR_API_BASE_URL. Not billed.`,
        ),
      };
  }
}

/** The service's error text, from a JSON body (`error` as text or `{message}`, or `message`) or a text body. */
export function upstreamMessage(body: unknown): string {
  if (typeof body === "string") return body.trim().slice(0, 300);
  if (typeof body === "object" && body !== null) {
    const b = body as Record<string, unknown>;
    const error = b.error;
    if (typeof error === "string") return error.slice(0, 300);
    if (typeof error === "object" && error !== null && typeof (error as Record<string, unknown>).message === "string") {
      return String((error as Record<string, unknown>).message).slice(0, 300);
    }
    if (typeof b.message === "string") return b.message.slice(0, 300);
  }
  return "";
}

function describe(body: unknown, redact: (text: string) => string): string {
  const text = typeof body === "string" ? body : (JSON.stringify(body) ?? "");
  return redact(text.length > 120 ? `${text.slice(0, 117)}...` : text);
}
