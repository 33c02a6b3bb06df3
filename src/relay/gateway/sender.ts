import { setTimeout as sleep } from "node:timers/promises";
import { AnyRequest, Operation } from "../../contract";
import { RelayError } from "../relay-errors";
import type { CallEvents } from "../ops/events";
import { RelayMetrics } from "../ops/metrics";
import { AcquireOptions, Pacer, Slot } from "../pacing/pacer";
import { RetryPolicy, retryVerdict } from "../upstream/retry-rule";
import { Upstream } from "../upstream/upstream";
import { UpstreamResult } from "../upstream/upstream-call";

/**
 * Sending one call to the service within the account's rate: a send slot from the pacer, then the
 * call, retried only where the service cannot have billed (retry-rule.ts), each retry on a new slot.
 */
export interface SenderOptions {
  pacer: Pacer;
  upstream: Upstream;
  metrics: RelayMetrics;
  events: CallEvents;
  retryPolicy: RetryPolicy;
  /** How long one call may take, retries included, once its send slot is granted. */
  callTimeoutMs: number;
}

export class Sender {
  readonly #o: SenderOptions;
  #inFlight = 0;

  constructor(options: SenderOptions) {
    this.#o = options;
  }

  /** Calls sent and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Waits for a send slot (in the pacer's queue, in `caller`'s turn at its `priority`). */
  slot(signal: AbortSignal, turn: Pick<AcquireOptions, "caller" | "priority"> = {}): Promise<Slot> {
    return this.#o.pacer.acquire(signal, turn);
  }

  /**
   * Sends the call on `slot`, retrying where that cannot bill twice, and releases every slot it
   * used. A slot older than its lifetime (the ledger was slow, or this process stalled) is traded
   * for the next one first, ahead of the queue: the pacer counts a slot as handed over within its
   * lifetime, and handed over later the request could reach the service bunched with those granted
   * after it. A RelayError means nothing was sent.
   */
  async send(op: Operation, request: AnyRequest, slot: Slot): Promise<UpstreamResult | RelayError> {
    const { pacer, metrics } = this.#o;
    let current: Slot | RelayError = slot;
    if (performance.now() - slot.grantedAt > pacer.slotLifetimeMs) {
      metrics.slotsRenewed.inc();
      slot.release();
      current = await this.#slotNow();
      if (current instanceof RelayError) return current;
    }
    const deadline = Date.now() + this.#o.callTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      const result = await this.#call(op, request, attempt, current);
      const verdict = retryVerdict(result, attempt, this.#o.retryPolicy);
      if (!verdict.retry || Date.now() + verdict.delayMs >= deadline) return result;
      if (result.kind === "answer" && result.status === 429) pacer.throttled(Date.now() + verdict.delayMs);
      this.#o.events.retrying(op, result, attempt, verdict.delayMs);
      await sleep(verdict.delayMs);
      // A retry takes a new slot, ahead of the calls not sent yet (it holds a lock and a ledger row
      // meanwhile). When none can be had the last answer stands: it is one that did not bill.
      current = await this.#slotNow();
      if (current instanceof RelayError) return result;
    }
  }

  /** One attempt on `slot`: released when its request is written, or when the attempt ends unwritten. */
  async #call(op: Operation, request: AnyRequest, attempt: number, slot: Slot): Promise<UpstreamResult> {
    this.#inFlight++;
    try {
      const sentAt = performance.now();
      const result = await this.#o.upstream.call(op, request, () => slot.release());
      this.#o.events.attempted(op, result, attempt, (performance.now() - sentAt) / 1000);
      return result;
    } finally {
      slot.release();
      this.#inFlight--;
    }
  }

  /** A send slot ahead of the queue, or the error saying why none can be had (pacer closed, its Redis away). */
  async #slotNow(): Promise<Slot | RelayError> {
    try {
      return await this.#o.pacer.acquire(undefined, { first: true });
    } catch (error) {
      return error instanceof RelayError
        ? error
        : new RelayError("STR_SHUTTING_DOWN", "The relay is stopping; nothing was sent.", { cause: error });
    }
  }
}
