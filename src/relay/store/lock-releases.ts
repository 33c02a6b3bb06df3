/**
 * Callers waiting for a request's lock, woken when it is released: at once where the store hears of
 * the release (in this process, or from Redis), at the latest when their wait runs out (a release
 * not heard of, a holder that died and whose lease lapsed).
 */
export class LockReleases {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Resolves when `key` is released, or after `ms`. Listening starts now, before any await. */
  wait(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let wakers = this.#waiting.get(key);
      if (!wakers) {
        wakers = new Set();
        this.#waiting.set(key, wakers);
      }
      const wake = () => {
        clearTimeout(timer);
        const set = this.#waiting.get(key);
        set?.delete(wake);
        if (set?.size === 0) this.#waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      // A wait left behind by a caller that took the lock must not keep the process up.
      timer.unref();
      wakers.add(wake);
    });
  }

  /** Wakes every caller waiting for `key`. */
  released(key: string): void {
    for (const wake of [...(this.#waiting.get(key) ?? [])]) wake();
  }
}
