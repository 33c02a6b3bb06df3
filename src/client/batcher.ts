import {
  AnyRequest,
  BatchItem,
  BatchLine,
  MAX_BATCH_ITEMS,
  Operation,
  RelayAnswer,
  RelayErrorBody,
  SessionAnswer,
  canonicalRequest,
  isAnswerToKeep,
} from "../contract";
import { RelayCallError } from "./relay-call-error";
import { RelayClient } from "./relay-client";

/*
 * Turns many single calls into few requests, and gets the first of them on its way early.
 *
 * - A call is only queued when it is made; calls are read (their request built and checked, given
 *   as a function) at the end of the tick, in slices: the first slice is `burstItems` calls, each
 *   next one four times the last, each in its own task. A recalculation makes a thousand calls in
 *   one tick: read all before sending and the relay would wait for every one; this way it starts on
 *   the first slice while the rest are read, each next request is on its way before the relay is
 *   done with the one before, and 10,000 calls make only 4 requests.
 * - Calls read go to the relay together as one POST /v1/batch: at the end of the slice when there
 *   are `burstItems` of them, else when a short window closes, which merges the small deliveries a
 *   recalculation may also arrive in.
 * - Each call settles as soon as its NDJSON line arrives. Identical calls share one item; answers
 *   are remembered for the session, so a recalculation of an unchanged sheet sends nothing at all.
 * - A cancelled call (a deleted cell) is never read if it was not yet, and drops its item if the
 *   batch has not gone; when every call of a batch that has gone is cancelled, the batch is
 *   abandoned and the relay drops its unsent items.
 */

export interface BatcherOptions {
  client: Pick<RelayClient, "batch">;
  /** How long calls read gather before they are sent together, ms. @default 10 */
  windowMs?: number;
  /**
   * The first slice of calls read, and the number gathered that is worth a request of its own. The
   * first request must keep the relay busy while the next slice is read and its request set up
   * (bench:functions shows whether it does). @default 250
   */
  burstItems?: number;
  /** Answers remembered for the session, most recent kept. @default 2000 */
  sessionCacheSize?: number;
}

/**
 * Runs `fn` in a task of its own once the current one (and its microtasks) has ended: the calls
 * Excel makes in one go are all queued by then. Node's setTimeout(0) waits at least 1 ms, its
 * setImmediate does not; browsers have no setImmediate, and delay setTimeout(0) only when nested
 * five deep (a recalculation of up to 21,250 calls is read in four slices).
 */
const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
const nextTask: (fn: () => void) => void = immediate ? (fn) => void immediate(fn) : (fn) => void setTimeout(fn, 0);

/** Each slice of calls read is this many times the last (see BatcherOptions). */
const SLICE_GROWTH = 4;

/**
 * A call's cancel hook, as Excel's CancelableInvocation has it: the batcher sets `onCanceled`, and
 * whoever cancels the call calls it (Excel does when the cell is deleted). A hook rather than an
 * AbortSignal: it is what Excel's invocation already has, and a recalculation would otherwise
 * make a signal and a listener for each of its thousand calls.
 */
export interface Cancelable {
  onCanceled?: (() => void) | undefined;
}

/**
 * Decides, from a call's canonical request, whether it is a refresh (the add-in's RefreshGate): asked
 * once per call, when the batcher reads it, since only then is its request known.
 */
export interface RefreshAdmission {
  admit(canonical: string): { freshSince: number | undefined } | undefined;
}

export interface RequestOptions {
  refresh?: boolean;
  /** Asked about a call that is not a refresh already: it may make it one (see RefreshAdmission). */
  gate?: RefreshAdmission | undefined;
  /** With `refresh`: an answer fetched since this time (epoch ms) satisfies it (see RefreshGate). */
  freshSince?: number | undefined;
  /** The call's cancel hook: usually the function's invocation itself. */
  cancelable?: Cancelable | undefined;
}

/**
 * A call's request: valid already (the contract's schemas), or a function that builds it from the
 * call's arguments when the batcher reads the call, throwing when they are bad.
 */
export type RequestSource = AnyRequest | (() => AnyRequest);

/** One call, from when it is made until it settles. */
interface Call {
  op: Operation;
  source: RequestSource;
  refresh: boolean;
  freshSince: number | undefined;
  gate: RefreshAdmission | undefined;
  resolve: (answer: SessionAnswer) => void;
  reject: (error: unknown) => void;
  cancelable: Cancelable | undefined;
  /** What this call set as the cancel hook (unhooked once it settles). */
  onCanceled: (() => void) | undefined;
  /** Cancelled before it was read: never read. */
  cancelled: boolean;
}

interface Entry {
  /** The item's key among those gathered and sent: its canonical request, marked when it is a refresh. */
  key: string;
  /** Its canonical request: the key its answer is remembered by for the session. */
  canonical: string;
  item: BatchItem;
  /** The calls waiting for it: usually one (a list, lighter than a Set for a thousand entries at once). */
  waiters: Call[];
  batch: Batch | undefined;
  settled: boolean;
}

interface Batch {
  entries: Entry[];
  controller: AbortController;
}

export class BatchingClient {
  readonly #client: Pick<RelayClient, "batch">;
  readonly #windowMs: number;
  readonly #burstItems: number;
  readonly #cacheSize: number;
  /** Answers for the session, by canonical request. */
  readonly #session = new Map<string, RelayAnswer>();
  /** The most enhanced version held of each analysis, by id (see supersedes). */
  readonly #byId = new Map<string, RelayAnswer>();
  /** Calls made and not read yet, oldest first. */
  #unread: Call[] = [];
  /** The next slice of calls to read. */
  #slice: number;
  #readScheduled = false;
  /** Calls read and gathered for the next batch. */
  readonly #gathering = new Map<string, Entry>();
  /** Calls whose batch has gone and not yet answered them. */
  readonly #sent = new Map<string, Entry>();
  /** Refreshes gathered or sent and not settled, by canonical request (the calls of a request meanwhile join them). */
  readonly #refreshing = new Map<string, Entry>();
  #windowTimer: ReturnType<typeof setTimeout> | undefined;
  /** Batches sent so far (for tests and the pane's diagnostics). */
  batchesSent = 0;

  constructor(options: BatcherOptions) {
    this.#client = options.client;
    this.#windowMs = options.windowMs ?? 10;
    this.#burstItems = options.burstItems ?? 250;
    this.#slice = this.#burstItems;
    this.#cacheSize = options.sessionCacheSize ?? 2000;
  }

  /** Asks for one analysis. A request given as a function is called when the call is read; what it throws rejects the call. */
  request(op: Operation, source: RequestSource, options: RequestOptions = {}): Promise<SessionAnswer> {
    return new Promise<SessionAnswer>((resolve, reject) => {
      const call: Call = {
        op,
        source,
        refresh: options.refresh === true,
        freshSince: options.refresh === true ? options.freshSince : undefined,
        gate: options.refresh === true ? undefined : options.gate,
        resolve,
        reject,
        cancelable: options.cancelable,
        onCanceled: undefined,
        cancelled: false,
      };
      this.#hook(call, () => {
        call.cancelled = true;
        reject(cancelled());
      });
      this.#unread.push(call);
      if (!this.#readScheduled) {
        this.#readScheduled = true;
        nextTask(() => this.#readSlice());
      }
    });
  }

  /** Forgets the session's answers (after a refresh of everything, or new settings). */
  forget(): void {
    this.#session.clear();
    this.#byId.clear();
  }

  /** The version of an analysis this session holds (what STR.WHATIF starts from), if any. */
  analysis(id: string): RelayAnswer | undefined {
    return this.#byId.get(id);
  }

  /**
   * Keeps an analysis for the session unless the version held already supersedes it (a create and
   * its enhance answered in one batch arrive in either order); returns the version now held.
   */
  rememberAnalysis(answer: RelayAnswer): RelayAnswer {
    const id = answer.data?._id;
    if (typeof id !== "string") return answer;
    const held = this.#byId.get(id);
    if (held && supersedes(held, answer)) return held;
    this.#byId.delete(id);
    this.#byId.set(id, answer);
    if (this.#byId.size > this.#cacheSize) {
      const oldest = this.#byId.keys().next().value;
      if (oldest !== undefined) this.#byId.delete(oldest);
    }
    return answer;
  }

  /** Reads the next slice of calls: each becomes a session answer, an item gathered, or a failure. */
  #readSlice(): void {
    this.#readScheduled = false;
    const slice = this.#unread.length <= this.#slice ? this.#unread : this.#unread.slice(0, this.#slice);
    this.#unread = slice === this.#unread ? [] : this.#unread.slice(this.#slice);
    for (const call of slice) {
      if (call.cancelled) continue;
      let request: AnyRequest;
      try {
        request = typeof call.source === "function" ? call.source() : call.source;
      } catch (error) {
        this.#unhook(call);
        call.reject(error);
        continue;
      }
      this.#gather(call, request);
    }
    if (this.#gathering.size >= this.#burstItems) this.#flush();
    else if (this.#gathering.size > 0) this.#windowTimer ??= setTimeout(() => this.#flush(), this.#windowMs);
    if (this.#unread.length === 0) {
      this.#slice = this.#burstItems;
      return;
    }
    this.#slice *= SLICE_GROWTH;
    this.#readScheduled = true;
    nextTask(() => this.#readSlice());
  }

  /** A call read: answered from the session, or joined to the item for its request (gathered or already sent). */
  #gather(call: Call, request: AnyRequest): void {
    const canonical = canonicalRequest(call.op, request);
    const admitted = call.gate?.admit(canonical);
    if (admitted) {
      call.refresh = true;
      call.freshSince = admitted.freshSince;
    }
    const since = call.freshSince === undefined ? undefined : new Date(call.freshSince).toISOString();
    const key = call.refresh ? `${canonical}#refresh${since ?? ""}` : canonical;
    if (!call.refresh) {
      // A refresh of the same request on its way answers it: its answer is newer than the session's.
      const refreshing = this.#refreshing.get(canonical);
      if (refreshing) {
        refreshing.waiters.push(call);
        this.#hook(call, () => this.#cancel(refreshing, call));
        return;
      }
      const remembered = this.#session.get(canonical);
      if (remembered) {
        this.#unhook(call);
        call.resolve({ ...remembered, session: "remembered" });
        return;
      }
    }
    let entry = this.#sent.get(key) ?? this.#gathering.get(key);
    if (entry) entry.waiters.push(call);
    else {
      entry = {
        key,
        canonical,
        item: {
          strategy: call.op,
          params: request,
          ...(call.refresh ? { refresh: true } : {}),
          ...(since ? { freshSince: since } : {}),
        },
        waiters: [call],
        batch: undefined,
        settled: false,
      };
      this.#gathering.set(key, entry);
      if (call.refresh) this.#refreshing.set(canonical, entry);
    }
    const target = entry;
    this.#hook(call, () => this.#cancel(target, call));
  }

  #flush(): void {
    clearTimeout(this.#windowTimer);
    this.#windowTimer = undefined;
    const entries = [...this.#gathering.values()];
    this.#gathering.clear();
    for (let i = 0; i < entries.length; i += MAX_BATCH_ITEMS) void this.#send(entries.slice(i, i + MAX_BATCH_ITEMS));
  }

  async #send(entries: Entry[]): Promise<void> {
    const batch: Batch = { entries, controller: new AbortController() };
    for (const e of entries) {
      e.batch = batch;
      this.#sent.set(e.key, e);
    }
    this.batchesSent++;
    let failure: unknown;
    try {
      await this.#client.batch(
        entries.map((e) => e.item),
        // Cards and screening rows show metrics only; STR.COMPS reads the stored analysis by id.
        // Cells wait on these answers: they go before the same token's screening (priority).
        {
          signal: batch.controller.signal,
          maxComparables: 0,
          priority: "formula",
          onLine: (line) => this.#settleLine(entries, line),
        },
      );
    } catch (error) {
      failure = error;
    }
    for (const e of entries) {
      if (e.settled) continue;
      this.#settle(e, (w) =>
        w.reject(
          failure ??
            new RelayCallError(
              "STR_RELAY_BAD_ANSWER",
              "The relay's batch answer ended without this item; recalculate to try again.",
            ),
        ),
      );
    }
  }

  #settleLine(entries: Entry[], line: BatchLine): void {
    const entry = entries[line.index];
    if (!entry || entry.settled) return;
    if (line.status === 200 && !("error" in line.body)) {
      const answer = line.body as RelayAnswer;
      this.#remember(entry.canonical, answer);
      this.#settle(entry, (w) => w.resolve(answer));
    } else {
      const error = RelayCallError.fromBody(line.status, line.body as RelayErrorBody);
      this.#settle(entry, (w) => w.reject(error));
    }
  }

  #settle(entry: Entry, each: (w: Call) => void): void {
    entry.settled = true;
    this.#sent.delete(entry.key);
    this.#forgetRefresh(entry);
    for (const w of entry.waiters) {
      this.#unhook(w);
      each(w);
    }
    entry.waiters.length = 0;
  }

  /** Sets the call's cancel hook (Excel calls it when the cell is deleted). */
  #hook(call: Call, onCanceled: () => void): void {
    if (!call.cancelable) return;
    call.onCanceled = onCanceled;
    call.cancelable.onCanceled = onCanceled;
  }

  /** A settled call has nothing left to cancel; unhooked, it does not keep its batch alive either. */
  #unhook(call: Call): void {
    if (call.cancelable && call.cancelable.onCanceled === call.onCanceled) call.cancelable.onCanceled = undefined;
  }

  #cancel(entry: Entry, waiter: Call): void {
    const at = entry.waiters.indexOf(waiter);
    if (at < 0) return;
    entry.waiters.splice(at, 1);
    waiter.reject(cancelled());
    if (entry.waiters.length > 0) return;
    if (!entry.batch) {
      // Not sent yet: the item leaves the batch.
      this.#gathering.delete(entry.key);
      this.#forgetRefresh(entry);
      return;
    }
    // Sent: abandon the batch only when nobody waits for any of its items.
    if (entry.batch.entries.every((e) => e.settled || e.waiters.length === 0))
      entry.batch.controller.abort(cancelled());
  }

  #forgetRefresh(entry: Entry): void {
    if (this.#refreshing.get(entry.canonical) === entry) this.#refreshing.delete(entry.canonical);
  }

  #remember(key: string, answer: RelayAnswer): void {
    if (!isAnswerToKeep(answer)) return;
    this.rememberAnalysis(answer);
    this.#session.delete(key);
    this.#session.set(key, answer);
    if (this.#session.size > this.#cacheSize) {
      const oldest = this.#session.keys().next().value;
      if (oldest !== undefined) this.#session.delete(oldest);
    }
  }
}

/**
 * Whether `held` is a later version of the analysis than `other`: an enhance's answer is later than
 * its create's (an analysis id is created once, so a create's answer is never the enhanced one);
 * between two of a kind, the one the service produced later (each enhance adds to the last).
 */
function supersedes(held: RelayAnswer, other: RelayAnswer): boolean {
  const heldEnhanced = held.relay.operation === "enhance";
  if (heldEnhanced !== (other.relay.operation === "enhance")) return heldEnhanced;
  return Date.parse(held.relay.fetchedAt) > Date.parse(other.relay.fetchedAt);
}

function cancelled(): RelayCallError {
  return new RelayCallError("STR_CANCELLED", "Cancelled.");
}
