import { AnyRequest, BatchItem, BatchLine, MAX_BATCH_ITEMS, Operation, RelayAnswer, RelayErrorBody, canonicalRequest } from "../contract";
import { RelayCallError } from "./errors";
import { RelayClient } from "./relay-client";

/**
 * Turns many single calls into few requests: every call made within one short window (a
 * recalculation calls hundreds of cells in a burst) goes to the relay as one POST /v1/batch, and
 * each call settles as soon as its NDJSON line arrives. Identical calls share one item; answers are
 * remembered for the session, so a recalculation of an unchanged sheet sends nothing at all. A
 * cancelled call (a deleted cell) drops its item if the batch has not gone yet; when every call of
 * a batch that has gone is cancelled, the batch is abandoned and the relay drops its unsent items.
 */
export interface BatcherOptions {
  client: Pick<RelayClient, "batch">;
  /** How long calls gather before they are sent together, ms. @default 10 */
  windowMs?: number;
  /** Answers remembered for the session, most recent kept. @default 2000 */
  sessionCacheSize?: number;
}

/**
 * A call's cancel hook, as Excel's CancelableInvocation has it: the batcher sets `onCanceled`, and
 * whoever cancels the call calls it (Excel does when the cell is deleted). A hook rather than an
 * AbortSignal: a recalculation makes a thousand calls at once, and a signal with its listener
 * costs each about 5 µs in Node (bench:functions), a third of what a call costs before it is sent.
 */
export interface Cancelable {
  onCanceled?: (() => void) | undefined;
}

export interface RequestOptions {
  refresh?: boolean;
  /** The call's cancel hook: usually the function's invocation itself. */
  cancelable?: Cancelable | undefined;
}

interface Waiter {
  resolve: (answer: RelayAnswer) => void;
  reject: (error: unknown) => void;
  cancelable: Cancelable | undefined;
  onCanceled: (() => void) | undefined;
}

interface Entry {
  key: string;
  item: BatchItem;
  waiters: Set<Waiter>;
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
  readonly #cacheSize: number;
  /** Answers for the session, by canonical request. */
  readonly #session = new Map<string, RelayAnswer>();
  /** The latest answer per analysis id: an enhance replaces its create's. */
  readonly #byId = new Map<string, RelayAnswer>();
  /** Calls gathered for the next batch. */
  readonly #gathering = new Map<string, Entry>();
  /** Calls whose batch has gone and not yet answered them. */
  readonly #sent = new Map<string, Entry>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Batches sent so far (for tests and the pane's diagnostics). */
  batchesSent = 0;

  constructor(options: BatcherOptions) {
    this.#client = options.client;
    this.#windowMs = options.windowMs ?? 10;
    this.#cacheSize = options.sessionCacheSize ?? 2000;
  }

  /** Asks for one analysis. `request` must already be valid (the contract's schemas). */
  request(op: Operation, request: AnyRequest, options: RequestOptions = {}): Promise<RelayAnswer> {
    const canonical = canonicalRequest(op, request);
    const key = options.refresh ? `${canonical}#refresh` : canonical;
    if (!options.refresh) {
      const remembered = this.#session.get(canonical);
      if (remembered) return Promise.resolve({ ...remembered, relay: { ...remembered.relay, cached: true, costUSD: 0 } });
    }
    let entry = this.#sent.get(key) ?? this.#gathering.get(key);
    if (!entry) {
      entry = { key, item: { strategy: op, params: request, ...(options.refresh ? { refresh: true } : {}) }, waiters: new Set(), batch: undefined, settled: false };
      this.#gathering.set(key, entry);
      this.#schedule();
    }
    const target = entry;
    return new Promise<RelayAnswer>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, cancelable: options.cancelable, onCanceled: undefined };
      if (options.cancelable) {
        waiter.onCanceled = () => this.#cancel(target, waiter);
        options.cancelable.onCanceled = waiter.onCanceled;
      }
      target.waiters.add(waiter);
    });
  }

  /** Forgets the session's answers (after a refresh of everything, or new settings). */
  forget(): void {
    this.#session.clear();
    this.#byId.clear();
  }

  /** The latest answer this session holds for an analysis id (what STR.WHATIF starts from), if any. */
  analysis(id: string): RelayAnswer | undefined {
    return this.#byId.get(id);
  }

  /** Keeps an answer fetched by id (GET /v1/analyses/:id) for the session. */
  rememberAnalysis(answer: RelayAnswer): RelayAnswer {
    const id = answer.data?._id;
    if (typeof id !== "string") return answer;
    this.#byId.delete(id);
    this.#byId.set(id, answer);
    if (this.#byId.size > this.#cacheSize) {
      const oldest = this.#byId.keys().next().value;
      if (oldest !== undefined) this.#byId.delete(oldest);
    }
    return answer;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#windowMs);
  }

  #flush(): void {
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
        { signal: batch.controller.signal, maxComparables: 0, onLine: (line) => this.#settleLine(entries, line) },
      );
    } catch (error) {
      failure = error;
    }
    for (const e of entries) {
      if (e.settled) continue;
      this.#settle(e, (w) => w.reject(failure ?? new RelayCallError("STR_RELAY_BAD_ANSWER", "The relay's batch answer ended without this item; recalculate to try again.")));
    }
  }

  #settleLine(entries: Entry[], line: BatchLine): void {
    const entry = entries[line.index];
    if (!entry || entry.settled) return;
    if (line.status === 200 && !("error" in line.body)) {
      const answer = line.body as RelayAnswer;
      this.#remember(entry.key.replace(/#refresh$/, ""), answer);
      this.#settle(entry, (w) => w.resolve(answer));
    } else {
      const error = RelayCallError.fromBody(line.status, line.body as RelayErrorBody);
      this.#settle(entry, (w) => w.reject(error));
    }
  }

  #settle(entry: Entry, each: (w: Waiter) => void): void {
    entry.settled = true;
    this.#sent.delete(entry.key);
    for (const w of entry.waiters) {
      // A settled call has nothing left to cancel; unhooked, it does not keep its batch alive either.
      if (w.cancelable && w.cancelable.onCanceled === w.onCanceled) w.cancelable.onCanceled = undefined;
      each(w);
    }
    entry.waiters.clear();
  }

  #cancel(entry: Entry, waiter: Waiter): void {
    if (!entry.waiters.delete(waiter)) return;
    waiter.reject(cancelled());
    if (entry.waiters.size > 0) return;
    if (!entry.batch) {
      // Not sent yet: the item leaves the batch.
      this.#gathering.delete(entry.key);
      return;
    }
    // Sent: abandon the batch only when nobody waits for any of its items.
    if (entry.batch.entries.every((e) => e.settled || e.waiters.size === 0)) entry.batch.controller.abort(cancelled());
  }

  #remember(key: string, answer: RelayAnswer): void {
    this.rememberAnalysis(answer);
    this.#session.delete(key);
    this.#session.set(key, answer);
    if (this.#session.size > this.#cacheSize) {
      const oldest = this.#session.keys().next().value;
      if (oldest !== undefined) this.#session.delete(oldest);
    }
  }
}

function cancelled(): RelayCallError {
  return new RelayCallError("STR_CANCELLED", "Cancelled.");
}
