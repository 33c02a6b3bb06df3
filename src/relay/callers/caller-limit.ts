/**
 * A per-caller rate limit (requests a second, per token), separate from pacing to the service: it
 * stops a runaway sheet or script from flooding the relay itself. A token bucket fits here (bursts
 * are fine; the service's own limit is enforced by the pacer).
 */
export class CallerLimit {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(requestsPerSecond: number, burst = Math.max(1, requestsPerSecond * 4)) {
    this.#rate = requestsPerSecond;
    this.#burst = burst;
  }

  /** Takes one request from the caller's bucket, or says how long until one is free (ms). */
  take(caller: string, now: number = Date.now()): { ok: true } | { ok: false; retryAfterMs: number } {
    const b = this.#buckets.get(caller) ?? { tokens: this.#burst, at: now };
    b.tokens = Math.min(this.#burst, b.tokens + ((now - b.at) / 1000) * this.#rate);
    b.at = now;
    this.#buckets.set(caller, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - b.tokens) / this.#rate) * 1000) };
  }
}
