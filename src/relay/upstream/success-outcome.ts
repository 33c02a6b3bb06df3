import {
  AnyRequest,
  NormalizedEnvelope,
  Operation,
  aiChargeEstimated,
  centsToUSD,
  chargeFor,
  checkUpstreamValues,
  isCreate,
  maxCharge,
  normalizeEnvelope,
} from "../../contract";
import { RelayError } from "../relay-errors";
import type { Outcome } from "./outcome";
import { notCarriedOut, upstreamMessage } from "./outcome";
import { readServiceAnswer, sampleOf } from "./service-answer";
import { UNUSABLE_CODE, unusableNote } from "./unusable-answer";

/* What a 2xx answer from the service means for the bill and for the caller (outcome.ts has the rest). */

type Redact = (text: string) => string;

/**
 * A 2xx answer: billed by what it reports (the spec's price list), free when nothing was charged.
 * Only the service's envelope can have been billed (service-answer.ts): anything else is a failed
 * request. Only an envelope that holds an analysis is a success: `success: false` without one is a
 * failed request (not billed), and a create without one is billed and unusable, kept as such.
 */
export function successOutcome(
  op: Operation,
  request: AnyRequest,
  status: number,
  body: unknown,
  redact: Redact,
): Outcome {
  const read = readServiceAnswer(body);
  if (read.kind === "foreign") return notTheService(status, body, redact);
  if (read.kind === "cut") {
    if (read.said === "failure") return failedEnvelope(status, body, redact);
    if (read.said === "nothing") return cutBeforeItSaid(op, request, status, body, redact);
    // Cut after it said success: billed, with every AI function requested counted as completed.
    return unusable(status, maxCharge(op, request), `an answer cut short (${sampleOf(body)})`, body, redact);
  }
  const { purchasePriceUSD } = request as { purchasePriceUSD?: number };
  const envelope = normalizeEnvelope(read.envelope, status, { purchasePriceUSD });
  if (!envelope.success && !envelope.data) return failedEnvelope(status, body, redact);
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
    return unusable(status, charge, `no analysis (${sampleOf(body)})`, body, redact);
  }
  // An id or link the relay cannot pass on (upstream-values.ts): links are dropped; an id outside
  // the rule makes the answer unusable, though billed.
  const checked = checkUpstreamValues(envelope);
  if (checked.problem) return unusable(status, charge, checked.problem, body, redact);
  const envelopeOut = withEstimateNote(checked.envelope, request, charge);
  return { state: charge.cents > 0 ? "billed" : "free", status, charge, envelope: envelopeOut };
}

/**
 * The answer says when its AI charge is an estimate (billing.ts aiChargeEstimated): a note, which
 * cells, the pane and str-screen show with the warnings.
 */
function withEstimateNote(
  envelope: NormalizedEnvelope,
  request: AnyRequest,
  charge: Outcome["charge"],
): NormalizedEnvelope {
  if (charge.aiFunctions === 0 || !aiChargeEstimated(request, envelope.warnings)) return envelope;
  const note = `AI charge estimated: a warning names no AI function, so ${charge.aiFunctions === 1 ? "1 AI function was" : `${charge.aiFunctions} AI functions were`} counted as completed and billed (${centsToUSD(charge.cents).toFixed(2)} USD in all); the service's own bill may be lower`;
  return { ...envelope, notes: [...envelope.notes, note] };
}

/** Billed, and nothing to show: kept in the ledger with a sample of the body, told as such. */
function unusable(status: number, charge: Outcome["charge"], what: string, body: unknown, redact: Redact): Outcome {
  return {
    state: "billed",
    status,
    charge,
    error: new RelayError(
      UNUSABLE_CODE,
      `The service answered ${status} with ${redact(what)}; the report was billed, and the relay keeps this outcome: the same request is not bought again unless refreshed explicitly.`,
    ),
    ledgerNote: unusableNote(sampleOf(body, 1000), redact),
  };
}

/** The envelope says the request failed: not billed (spec: failed requests are not billed). */
function failedEnvelope(status: number, body: unknown, redact: Redact): Outcome {
  const said = redact(upstreamMessage(body));
  return notCarriedOut(
    status,
    `The service answered ${status} with success: false${said ? `: ${said}` : " and no reason"}. Failed requests are not billed.`,
  );
}

/** Not the service's envelope (a proxy's page): the request got no answer of the service's, and failed. */
function notTheService(status: number, body: unknown, redact: Redact): Outcome {
  return notCarriedOut(
    status,
    `The service's address answered ${status} with something that is not the service's answer (${redact(sampleOf(body))}): a proxy or gateway on the way. Failed requests are not billed; check STR_API_BASE_URL if it persists.`,
  );
}

/** The service's envelope, cut before it said how the call went: it may have billed. */
function cutBeforeItSaid(op: Operation, request: AnyRequest, status: number, body: unknown, redact: Redact): Outcome {
  return {
    state: "unknown",
    status,
    charge: maxCharge(op, request),
    error: new RelayError(
      "STR_UPSTREAM_FAILED",
      `The service answered ${status} with an answer cut short before it said how the call went (${redact(sampleOf(body))}); it may have billed. Refresh explicitly to send it again.`,
    ),
  };
}
