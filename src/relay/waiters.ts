import type { Slot } from "./pacer";

/**
 * The callers waiting for a send slot, in order, shared by both pacers: each waits on a promise
 * that the pacer grants (first in line first), fails, or that its own abort signal withdraws.
 * `grant` is the one place a waiting call is given a slot (the place to choose whom, too).
 */
interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class Waiters {
  readonly #queue: Waiter[] = [];
  #closed = false;

  get size(): number {
    return this.#queue.length;
  }

  /** Waits in line (at its head with `first`); rejects with the signal's reason if it fires first, or at once once closed. */
  wait(signal: AbortSignal | undefined, first = false): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#closed) return Promise.reject(new Error("pacer closed"));
    return new Promise<Slot>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      if (first) this.#queue.unshift(waiter);
      else this.#queue.push(waiter);
    });
  }

  /** Gives `slot` to the first in line; false when nobody waits. */
  grant(slot: Slot): boolean {
    const waiter = this.#queue.shift();
    if (!waiter) return false;
    this.#release(waiter);
    waiter.resolve(slot);
    return true;
  }

  /** Fails everyone waiting now with `error`; later callers may still wait. */
  failAll(error: unknown): void {
    for (const waiter of this.#queue.splice(0)) {
      this.#release(waiter);
      waiter.reject(error);
    }
  }

  /** Fails everyone waiting, and every later caller at once. */
  close(): void {
    this.#closed = true;
    this.failAll(new Error("pacer closed"));
  }

  #release(waiter: Waiter): void {
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener("abort", waiter.onAbort);
  }
}
