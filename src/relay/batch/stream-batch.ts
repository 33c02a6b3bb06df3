import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import { BatchLine, PendingLine, Priority, RelayAnswer } from "../../contract";
import type { FastifyBaseLogger } from "fastify";
import { BatchTally } from "./batch-summary";
import { ParsedItem, pointIntoItem } from "./batch-request";
import type { Caller } from "../callers/caller";
import { RelayError, asRelayError } from "../relay-errors";
import { RelayEvents } from "../ops/events";
import { Gateway } from "../gateway";
import { PENDING_LEASE_MS, closingDelayMs, pendingLine } from "./pending";
import type { Membership } from "../gateway/single-flight";

/*
 * POST /v1/batch's answer: items run through the same gateway as single calls (cache, sharing,
 * budget, pacing); each answer is one NDJSON line, written as it completes. A bad item fails alone.
 * When the caller disconnects, items not yet sent are dropped. At the deadline, items still running
 * keep their calls for a while (PENDING_LEASE_MS) for the caller to ask again, which takes them
 * over; items not started yet are not started: asked again, they start then.
 */

/**
 * Items started per turn of the event loop, and the most being checked at once (the cache, the
 * budget, the lock, the ledger). On the SQLite store an item's checks run without I/O to wait on, so
 * a slice's checks hold the event loop as one task: a batch started whole would hold it until its
 * last line was made, every other caller waiting and not one line sent, and a long task delays the
 * pacer's sends, which then leave bunched (the embedded sandbox, on the same event loop, sees them
 * arrive over its limit). On the shared store the checks of every item would advance together, a
 * round trip at a time, so the first send would wait for the last item's checks. Started a few at a
 * time, lines go out as they are made, sends begin at once, and other requests are served between.
 */
export const ITEMS_PER_TURN = 25;

/**
 * How much of the answer may wait unread before no more items are started: a caller that reads
 * slowly, or not at all, holds this much of the relay's memory, not a whole batch of answers.
 */
export const UNREAD_LIMIT_BYTES = 1 << 20;

export interface StreamOptions {
  maxComparables?: number | undefined;
  /**
   * The answer reaches the caller by then (ms from now), whatever is still running: it is ended a
   * little earlier (closingDelayMs), each item not answered yet getting a pending line; their work
   * goes on and their answers are kept, for the client to ask again.
   */
  deadlineMs?: number | undefined;
  /** Who sent the batch (caller.ts). */
  caller?: Caller | undefined;
  /** Where each item's events and the batch's summary line go (events.ts, batch-summary.ts). */
  observe?: { log: FastifyBaseLogger; events: RelayEvents } | undefined;
  /** How long items left pending keep their calls for the caller to ask again. @default PENDING_LEASE_MS */
  pendingLeaseMs?: number | undefined;
  /** Answer only from the cache or a call in flight, never send (BatchRequest.joinOnly). */
  joinOnly?: boolean | undefined;
  /** Its items' place in the caller's turn for send slots (parseBatch settles the default). */
  priority?: Priority | undefined;
}

/** Runs every item; the stream carries one line per item in completion order and ends after the last (or at the deadline). */
export function streamBatch(
  gateway: Gateway,
  items: ParsedItem[],
  signal: AbortSignal,
  options: StreamOptions = {},
): PassThrough {
  return new BatchStream(gateway, items, signal, options).start();
}

/** One batch's answer as it is written: the items started, those answered, and the deadline. */
class BatchStream {
  readonly #out = new PassThrough({ writableHighWaterMark: UNREAD_LIMIT_BYTES });
  readonly #receivedAt = Date.now();
  readonly #answered = new Set<number>();
  readonly #tally: BatchTally;
  #open: number;
  /** The next item to start. */
  #next = 0;
  /** Items started whose checks are not done yet (AnalyzeOptions.onWaiting). */
  #checking = 0;
  /** No item is started until enough of those being checked are done. */
  #held = false;
  #deadline: NodeJS.Timeout | undefined;
  /** The answer has ended at its deadline: items joining their calls from now on lease their places. */
  #pastDeadline = false;
  /** Each started item's call: its place (once joined), else the name it proposed. */
  readonly #calls = new Map<number, { proposed: string; membership?: Membership }>();
  readonly #gateway: Gateway;
  readonly #items: ParsedItem[];
  readonly #signal: AbortSignal;
  readonly #options: StreamOptions;
  readonly #leaseMs: number;

  constructor(gateway: Gateway, items: ParsedItem[], signal: AbortSignal, options: StreamOptions) {
    this.#gateway = gateway;
    this.#items = items;
    this.#signal = signal;
    this.#options = options;
    this.#leaseMs = options.pendingLeaseMs ?? PENDING_LEASE_MS;
    this.#open = items.length;
    this.#tally = new BatchTally(items.length);
    const { observe, caller } = options;
    if (observe) this.#out.once("close", () => this.#tally.log(observe.log, caller));
  }

  start(): PassThrough {
    this.#deadline = setTimeout(() => this.#closeAtDeadline(), closingDelayMs(this.#options.deadlineMs));
    this.#deadline.unref();
    this.#startSlice();
    if (this.#items.length === 0) {
      clearTimeout(this.#deadline);
      this.#out.end();
    }
    return this.#out;
  }

  #write(line: BatchLine | PendingLine): void {
    if (this.#out.writableEnded) return;
    this.#answered.add(line.index);
    this.#tally.add(line);
    this.#out.write(`${JSON.stringify(line)}\n`);
  }

  // Only what reaches the caller counts: an item finishing after the deadline was answered as pending.
  #ended(item: ParsedItem, result: RelayAnswer | RelayError): void {
    if (this.#out.writableEnded) return;
    const { observe, caller } = this.#options;
    const context = { caller, operation: item.ok ? item.op : undefined, index: item.index };
    observe?.events.analysisEnded(observe.log, context, result);
  }

  #settle(): void {
    if (--this.#open === 0) {
      clearTimeout(this.#deadline);
      this.#out.end();
    }
  }

  #run(item: ParsedItem): void {
    if (!item.ok) {
      this.#ended(item, item.error);
      this.#write({ index: item.index, status: item.error.statusCode, body: item.error.toBody() });
      this.#settle();
      return;
    }
    const signal = this.#signal;
    const options = this.#options;
    let checked = false;
    const onWaiting = () => {
      if (checked) return;
      checked = true;
      this.#checking--;
      if (this.#held && this.#checking <= ITEMS_PER_TURN / 2) {
        this.#held = false;
        setImmediate(() => this.#startSlice());
      }
    };
    this.#checking++;
    // The client's name for the call when it gave one (it may ask for the call again by it).
    const call: { proposed: string; membership?: Membership } = { proposed: item.call ?? randomUUID() };
    this.#calls.set(item.index, call);
    this.#gateway
      .analyze(item.op, item.params, {
        refresh: item.refresh,
        freshSince: item.freshSince,
        call: item.call,
        newCallId: call.proposed,
        joinOnly: options.joinOnly,
        signal,
        caller: options.caller,
        priority: options.priority,
        maxComparables: options.maxComparables,
        onWaiting,
        onJoin: (membership) => {
          call.membership = membership;
          if (this.#pastDeadline) membership.lease(this.#leaseMs);
        },
      })
      .then(
        (answer) => {
          this.#ended(item, answer);
          this.#write({ index: item.index, status: 200, body: answer });
        },
        (error: unknown) => {
          if (signal.aborted) return;
          const e = pointIntoItem(asRelayError(error), item);
          this.#ended(item, e);
          this.#write({ index: item.index, status: e.statusCode, body: e.toBody() });
        },
      )
      .finally(() => {
        onWaiting();
        this.#settle();
      });
  }

  // At the deadline each item not answered yet is told to ask again. One running keeps its call for
  // a while (a lease), and its line names the call it started, so that asking again takes over that
  // call and its cost; one not started yet is not started. Ending the answer ourselves is not a
  // disconnect: nothing running is dropped at once.
  #closeAtDeadline(): void {
    if (this.#out.writableEnded) return;
    this.#pastDeadline = true;
    this.#next = this.#items.length;
    for (const item of this.#items) {
      if (this.#answered.has(item.index)) continue;
      const call = this.#calls.get(item.index);
      call?.membership?.lease(this.#leaseMs);
      // A place not taken yet may still start the call it proposed; one that joined another's did not start it.
      const started =
        call && (call.membership ? (call.membership.starter ? call.membership.callId : undefined) : call.proposed);
      this.#options.observe?.events.analysisPending();
      this.#write(
        pendingLine(item.index, item.ok && item.refresh ? (item.freshSince ?? this.#receivedAt) : undefined, started),
      );
    }
    this.#out.end();
  }

  #startSlice(): void {
    const out = this.#out;
    // The caller has gone: items not started yet are never started (nor sent, nor billed).
    if (this.#signal.aborted || out.destroyed) {
      if (!out.writableEnded) out.end();
      return;
    }
    const items = this.#items;
    if (this.#next >= items.length) return;
    if (out.writableNeedDrain) {
      const resume = () => {
        out.off("drain", resume);
        out.off("close", resume);
        setImmediate(() => this.#startSlice());
      };
      out.on("drain", resume);
      out.on("close", resume);
      return;
    }
    const end = Math.min(items.length, this.#next + ITEMS_PER_TURN - this.#checking);
    for (; this.#next < end; this.#next++) this.#run(items[this.#next] as ParsedItem);
    // Resumed by the items being checked as they finish (#run).
    if (this.#checking >= ITEMS_PER_TURN / 2) this.#held = true;
    else setImmediate(() => this.#startSlice());
  }
}
