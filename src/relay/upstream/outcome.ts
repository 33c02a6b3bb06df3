import { AnyRequest, Billing, Charge, NO_CHARGE, NormalizedEnvelope, Operation, maxCharge } from "../../contract";
import { RelayError } from "../relay-errors";
import { CallState } from "../store/store";
import { successOutcome } from "./success-outcome";
import { isUnusableNote } from "./unusable-answer";
import { UpstreamFailure, UpstreamResult } from "./upstream-call";

/**
 * What a finished call means for the ledger and for the caller. The billing side follows the
 * spec: a successful create is billed 0.20 USD plus 0.10 per completed AI function; validation
 * errors and failed requests are free; where the relay cannot know, the call is "unknown" and held
 * at its most against the budget.
 */
export type Outcome =
  | { state: "billed" | "free"; status: number; charge: Charge; envelope: NormalizedEnvelope }
  | {
      state: Exclude<CallState, "pending">;
      status: number | undefined;
      charge: Charge;
      error: RelayError;
      /** What the ledger keeps in place of the bare code: a billed, unusable answer's sample (unusable-answer.ts). */
      ledgerNote?: string;
    };

/** The ledger's state as what the caller is told of the bill (the error body's `billing`). */
const BILLING: Readonly<Record<Outcome["state"], Billing>> = {
  billed: "billed",
  free: "not-billed",
  failed: "not-billed",
  unknown: "unknown",
};

/** Why a request's last call holds it back from being sent again without the user asking (a refresh). */
export type HeldBack =
  /** The call's outcome is unknown: the service may have billed it, and sending again could bill twice. */
  | "unknown-outcome"
  /** The call was billed and its answer could not be used: sending again would buy the same again. */
  | "unusable";

/** The one rule: what of a request's last call (its ledger state and error) holds it back, if anything. */
export function heldBack(last: { state: CallState; errorCode?: string | undefined } | undefined): HeldBack | undefined {
  if (last?.state === "unknown") return "unknown-outcome";
  if (last?.state === "billed" && isUnusableNote(last.errorCode)) return "unusable";
  return undefined;
}

/** Whether the same request may be sent again without the user asking for it (a refresh). */
export function resendAllowed(last: { state: CallState; errorCode?: string | undefined } | undefined): boolean {
  return heldBack(last) === undefined;
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
  if (result.kind === "failure") return failureOutcome(op, request, result.failure, redact);
  const { status, body } = result;
  if (status >= 200 && status < 300) return successOutcome(op, request, status, body, redact);
  return errorStatusOutcome(op, request, status, body, redact);
}

/** No answer: failed (not billed) if nothing was sent, else unknown (the service may have done the work). */
function failureOutcome(
  op: Operation,
  request: AnyRequest,
  failure: UpstreamFailure,
  redact: (text: string) => string,
): Outcome {
  if (!failure.sent)
    return notCarriedOut(undefined, `Could not reach the service: ${redact(failure.message)}. Nothing was billed.`);
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

/** A non-2xx answer: the service's refusal or failure, said in its own words where it gave any. */
function errorStatusOutcome(
  op: Operation,
  request: AnyRequest,
  status: number,
  body: unknown,
  redact: (text: string) => string,
): Outcome {
  const message = redact(upstreamMessage(body));
  const said = message ? `: ${message}` : "";
  return status >= 500 ? serverErrorOutcome(op, request, status, said) : refusedOutcome(op, request, status, said);
}

/** Below 500: the service refused the request, and a refusal is never billed. */
function refusedOutcome(op: Operation, request: AnyRequest, status: number, said: string): Outcome {
  const free = (error: RelayError): Outcome => ({ state: "free", status, charge: NO_CHARGE, error });
  switch (true) {
    case status === 400 || status === 422 || status === 413:
      return free(
        new RelayError("STR_UPSTREAM_REJECTED", `The service refused the request (${status})${said}. Not billed.`),
      );
    case status === 401 || status === 403:
      return free(
        new RelayError("STR_UPSTREAM_AUTH", `The service refused the relay's API key (${status}). Check STR_API_KEY.`),
      );
    case status === 404 && op === "enhance":
      return free(
        new RelayError(
          "STR_ANALYSIS_NOT_FOUND",
          `The service has no analysis ${(request as { analysisId: string }).analysisId} for this key${said}.`,
        ),
      );
    case status === 429:
      return free(
        new RelayError(
          "STR_UPSTREAM_THROTTLED",
          "The service kept throttling the relay past its time limit. Not billed; retry later.",
        ),
      );
    default:
      return free(
        new RelayError(
          "STR_UPSTREAM_FAILED",
          `The service answered ${status}${said}. Check STR_API_BASE_URL. Not billed.`,
        ),
      );
  }
}

/** 500 and above: failed (not billed), unless a gateway answered for a service that may have done the work. */
function serverErrorOutcome(op: Operation, request: AnyRequest, status: number, said: string): Outcome {
  if (status === 502 || status === 504 || status >= 520) {
    return {
      state: "unknown",
      status,
      charge: maxCharge(op, request),
      error: new RelayError(
        status === 504 ? "STR_UPSTREAM_TIMEOUT" : "STR_UPSTREAM_FAILED",
        `The service's gateway answered ${status}${said}; the request may have been processed. Refresh explicitly to send it again.`,
      ),
    };
  }
  return notCarriedOut(status, `The service failed (${status})${said}. Failed requests are not billed.`);
}

/** The service did not carry the request out: failed, and failed requests are not billed (spec). */
export function notCarriedOut(status: number | undefined, message: string): Outcome {
  return { state: "failed", status, charge: NO_CHARGE, error: new RelayError("STR_UPSTREAM_FAILED", message) };
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
