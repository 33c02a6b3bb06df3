import { AnyRequest, Charge, NO_CHARGE, Operation, RelayAnswer } from "../../contract";
import type { Caller } from "../callers/caller";
import { RelayError } from "../relay-errors";
import type { CallEvents } from "../ops/events";
import { Outcome, outcomeOf } from "../upstream/outcome";
import type { Slot } from "../pacing/pacer";
import { AnswerCache } from "./answer-cache";
import { Ledger } from "./ledger";
import { Sender } from "./sender";
import type { Flight } from "./single-flight";

/*
 * The last step of a request the gateway decided to send, under its lock and past the fence: the
 * ledger row before the call, the call on its slot, the answer kept, the row settled.
 */

export interface SendParts {
  ledger: Ledger;
  sender: Sender;
  cache: AnswerCache;
  events: CallEvents;
}

export interface SendCall {
  op: Operation;
  request: AnyRequest;
  key: string;
  most: Charge;
  caller: Caller | undefined;
  redact: (text: string) => string;
}

export async function sendAndRecord(
  parts: SendParts,
  call: SendCall,
  slot: Slot,
  flight: Flight,
): Promise<RelayAnswer> {
  const { ledger, sender, cache, events } = parts;
  const { op, request, key } = call;
  // The ledger row is written before the call is sent, with the budget check in the same step.
  const row = await ledger.reserve(op, key, call.most.cents, call.caller).catch((error: unknown) => {
    slot.release(); // refused: the slot goes unused
    throw error;
  });
  flight.markSent();
  const result = await sender.send(op, request, slot);
  // No slot could be had to send on: nothing was sent, the row settles as failed.
  const outcome: Outcome =
    result instanceof RelayError
      ? { state: "failed", status: undefined, charge: NO_CHARGE, error: result }
      : outcomeOf(op, request, result, call.redact);
  events.callEnded(op, outcome, call.caller);
  if ("error" in outcome) {
    await ledger.record(row, outcome);
    throw outcome.error;
  }
  // The answer is kept before the ledger says how the call ended: a replica that dies between the
  // two leaves a cached answer and a call settled as unknown, never a finished call without its
  // answer, which the next replica to take the lock would send (and pay for) again.
  const answer = await cache.keep(op, key, outcome.envelope, outcome.charge.cents, flight.callId);
  await ledger.record(row, outcome);
  return answer;
}
