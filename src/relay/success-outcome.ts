import {
  AnyRequest,
  NO_CHARGE,
  Operation,
  chargeFor,
  checkUpstreamValues,
  isCreate,
  normalizeEnvelope,
} from "../contract";
import { RelayError } from "./errors";
import type { Outcome } from "./outcome";
import { upstreamMessage } from "./outcome";

/* What a 2xx answer from the service means for the bill and for the caller (outcome.ts has the rest). */

/**
 * A 2xx answer: billed by what it reports (the spec's price list), free when nothing was charged.
 * Only an answer that holds an analysis is a success: `success: false` without one is a failed
 * request (not billed), and a create without one is a bad answer, billed.
 */
export function successOutcome(
  op: Operation,
  request: AnyRequest,
  status: number,
  body: unknown,
  redact: (text: string) => string,
): Outcome {
  const { purchasePriceUSD } = request as { purchasePriceUSD?: number };
  const envelope = normalizeEnvelope(body, status, { purchasePriceUSD });
  if (!envelope.success && !envelope.data) {
    const said = redact(upstreamMessage(body));
    return {
      state: "failed",
      status,
      charge: NO_CHARGE,
      error: new RelayError(
        "STR_UPSTREAM_FAILED",
        `The service answered ${status} with success: false${said ? `: ${said}` : " and no reason"}. Failed requests are not billed.`,
      ),
    };
  }
  // An enhance answer whose analysis has no id cannot be told to be the one asked for: its figures
  // are not used, so it is answered without them (never kept), billed for the AI steps it reports.
  if (!isCreate(op) && envelope.data && !envelope.data._id) {
    const charge = chargeFor(op, request, { succeeded: true, hasData: true, warnings: envelope.warnings });
    const { data: _unused, ...rest } = envelope;
    const warning =
      "The service's enhance answer had no analysis id; its figures were not used. Enhance it again to retry.";
    return {
      state: charge.cents > 0 ? "billed" : "free",
      status,
      charge,
      envelope: { ...rest, warnings: [...(envelope.warnings ?? []), warning] },
    };
  }
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
  // An id or link the relay cannot pass on (upstream-values.ts): links are dropped; an id outside
  // the rule makes the answer unusable, though billed.
  const checked = checkUpstreamValues(envelope);
  if (checked.problem) {
    return {
      state: "billed",
      status,
      charge,
      error: new RelayError(
        "STR_UPSTREAM_BAD_ANSWER",
        `The service answered ${status} with ${checked.problem}; the report was billed.`,
      ),
    };
  }
  return { state: charge.cents > 0 ? "billed" : "free", status, charge, envelope: checked.envelope };
}

function describe(body: unknown, redact: (text: string) => string): string {
  const text = typeof body === "string" ? body : (JSON.stringify(body) ?? "");
  return redact(text.length > 120 ? `${text.slice(0, 117)}...` : text);
}
