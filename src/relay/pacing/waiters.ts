import type { Priority } from "../../contract";
import type { Slot } from "./pacer";

/*
 * The calls waiting for a send slot, shared by both pacers: each waits on a promise that the pacer
 * grants, fails, or that its own abort signal withdraws. `grant` is the one place a waiting call is
 * given a slot, and the place that chooses whom (relay.md, "Sharing the account's rate"):
 *
 * - calls that already had their turn and must renew a slot or retry (`first`) go before all others;
 * - then callers take turns, one slot each, in the order they began waiting: one caller's screening
 *   of thousands of rows never holds another caller's cells for more than a turn;
 * - within one caller, its `formula` calls go before its `bulk` ones, each kind first come first served.
 */

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** The caller key of the relay's own work (calls with no caller): a turn of its own. */
export const RELAY_OWN_WORK = "relay";

export interface WaitOptions {
  /** Ahead of every caller's turn: for a call that already waited its turn and must renew its slot or retry. */
  first?: boolean | undefined;
  /** Who asked (the token's id, caller.ts); undefined for the relay's own work. */
  caller?: string | undefined;
  /** `bulk` unless said otherwise. */
  priority?: Priority | undefined;
}

/** What one caller has waiting, as the shared pacer registers it. */
export interface WaitingCaller {
  caller: string;
  formula: number;
  bulk: number;
}

type Queues = Record<Priority, Waiter[]>;

/** The calls waiting for a send slot, in the order `grant` serves them. */
export class Waiters {
  readonly #first: Waiter[] = [];
  /** Each caller with calls waiting; the Map's order is the order of turns. */
  readonly #callers = new Map<string, Queues>();
  #size = 0;
  #closed = false;

  get size(): number {
    return this.#size;
  }

  /** True when a call waits ahead of every caller's turn. */
  get hasFirst(): boolean {
    return this.#first.length > 0;
  }

  /** Each caller with calls waiting, in turn order (the `first` calls are not counted). */
  callers(): WaitingCaller[] {
    return [...this.#callers].map(([caller, q]) => ({ caller, formula: q.formula.length, bulk: q.bulk.length }));
  }

  /** Waits for a slot; rejects with the signal's reason if it fires first, or at once once closed. */
  wait(signal: AbortSignal | undefined, options: WaitOptions = {}): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#closed) return Promise.reject(new Error("pacer closed"));
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      const line = options.first ? this.#first : this.#line(options.caller ?? RELAY_OWN_WORK, options.priority);
      if (signal) {
        waiter.onAbort = () => {
          const i = line.indexOf(waiter);
          if (i < 0) return;
          line.splice(i, 1);
          this.#size--;
          this.#forgetIdle(options.caller ?? RELAY_OWN_WORK);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      line.push(waiter);
      this.#size++;
    });
  }

  /**
   * Gives `slot` to the next call in the order above, or to `caller`'s next call when the shared
   * pacer chose that caller (its calls may have left meanwhile: then the next in order). False
   * when nobody waits.
   */
  grant(slot: Slot, caller?: string): boolean {
    const waiter = this.#first.shift() ?? this.#nextOf(caller) ?? this.#nextOf(this.#callers.keys().next().value);
    if (!waiter) return false;
    this.#size--;
    this.#release(waiter);
    waiter.resolve(slot);
    return true;
  }

  /** Fails everyone waiting now with `error`; later callers may still wait. */
  failAll(error: unknown): void {
    const all = [...this.#first.splice(0), ...[...this.#callers.values()].flatMap((q) => [...q.formula, ...q.bulk])];
    this.#callers.clear();
    this.#size = 0;
    for (const waiter of all) {
      this.#release(waiter);
      waiter.reject(error);
    }
  }

  /** Fails everyone waiting, and every later caller at once. */
  close(): void {
    this.#closed = true;
    this.failAll(new Error("pacer closed"));
  }

  #line(caller: string, priority: Priority = "bulk"): Waiter[] {
    let queues = this.#callers.get(caller);
    if (!queues) {
      queues = { formula: [], bulk: [] };
      this.#callers.set(caller, queues);
    }
    return queues[priority];
  }

  /** Takes `caller`'s next call and sends the caller to the back of the turns. */
  #nextOf(caller: string | undefined): Waiter | undefined {
    const queues = caller === undefined ? undefined : this.#callers.get(caller);
    if (!queues || caller === undefined) return undefined;
    const waiter = queues.formula.shift() ?? queues.bulk.shift();
    this.#callers.delete(caller);
    if (queues.formula.length + queues.bulk.length > 0) this.#callers.set(caller, queues);
    return waiter;
  }

  #forgetIdle(caller: string): void {
    const queues = this.#callers.get(caller);
    if (queues && queues.formula.length + queues.bulk.length === 0) this.#callers.delete(caller);
  }

  #release(waiter: Waiter): void {
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
  }
}
