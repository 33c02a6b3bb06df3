import { WaitOptions, Waiters } from "./waiters";

/**
 * Pacing of calls to the service: never more than the account's limit in any sliding window.
 *
 * A token bucket would allow a burst of its capacity on top of the rate (100 + 100 in one second),
 * and the service counts requests per second, so this is a sliding log instead. The rule holds by
 * construction on the sends themselves, not only on the grants: the window is one second plus a
 * margin for jitter between here and the service, and the log holds when each request left. A call
 * takes its slot as the last step before it hands its request to a connection, within the slot's
 * lifetime, and the request is written then, or once its connection has opened (a TLS handshake
 * with the service, a busy event loop), or never: upstream.ts gives up, unsent, on a request not
 * written within WRITE_DEADLINE_MS. So until its slot is released (`Slot.release`: written now, or
 * never will be), the log counts a send at the latest it could leave, the end of its lifetime plus
 * that deadline; then at the moment of release. Either way no send is counted earlier than it
 * left, so the send `limit` places back left at least one second plus the jitter margin earlier,
 * whatever the timers and connections did. A release moves the entry sooner, which is what lets the
 * next sends go: a timer that fires late lets the sends it delayed catch up, at twice the rate and
 * only as far as the window allows.
 *
 * Sends are also spaced evenly (`windowMs / limit` apart) rather than let out in bursts: a burst
 * queues up at the receiving end and arrives there bunched with the next one, which the service
 * would count as over the limit. When the service answers 429 anyway (another client shares the
 * key), sends stop until its Retry-After and then run at nine tenths of the limit for a while.
 */
export interface Pacer {
  /** Resolves when a send slot is granted; rejects with the signal's reason if aborted first. */
  acquire(signal?: AbortSignal, options?: AcquireOptions): Promise<Slot>;
  /**
   * How long a granted slot stays good, ms, from its `grantedAt`: a request not handed to its
   * connection within this (a slow store, a stalled process) releases it and takes a new one, since
   * the log counts this one as written by then plus WRITE_DEADLINE_MS at the latest.
   */
  readonly slotLifetimeMs: number;
  /** The service throttled: no sends before `until` (epoch ms), then slower for a while. */
  throttled(until: number): void;
  /** Calls waiting for a slot. */
  readonly waiting: number;
  close(): Promise<void>;
}

/** A granted send slot. */
export interface Slot {
  /** No later than the slot was granted, on performance.now()'s clock: its age counts from here. */
  grantedAt: number;
  /**
   * Says the slot's request has been written to its connection now, or never will be (the slot went
   * unused, or the call ended unwritten): the log counts it from now rather than from the latest it
   * could have been written. Only the first call counts. Every slot is released; one that is not
   * holds its place in the window until its lifetime and the write deadline are over.
   */
  release(): void;
}

/** Whose call it is and how urgent (waiters.ts chooses the order by them). */
export type AcquireOptions = WaitOptions;

export interface PacingRule {
  /** Sends allowed per window. */
  limit: number;
  /** Window length, ms: the account's, plus the jitter margin. */
  windowMs: number;
}

/** Margin for network jitter between a send here and its arrival at the service, ms. */
export const JITTER_MARGIN_MS = 40;
/**
 * How long a slot of the local pacer stays good. It is taken right before the send, with only the
 * ledger row (one SQLite write) between the two.
 */
export const LOCAL_SLOT_LIFETIME_MS = 15;
/**
 * How long a request handed to its connection may take to be written, ms: upstream.ts gives up on it,
 * unsent, after this (its connection did not open, or none was free). The pacer counts an unreleased
 * slot until its lifetime and this are over.
 */
export const WRITE_DEADLINE_MS = 10_000;
/** How many spacings late a timer may be and still have the sends it delayed catch up. */
const CATCH_UP = 4;
/** How long sends stay slower after the service throttled, ms. */
export const SLOW_DOWN_MS = 10_000;

/** The sliding-window rule for a rate in requests a second: 100 → 100 per 1,040 ms; 0.5 → 1 per 2,040 ms. */
export function pacingRule(requestsPerSecond: number): PacingRule {
  if (!Number.isFinite(requestsPerSecond) || requestsPerSecond <= 0) {
    throw new RangeError(`Expected requestsPerSecond to be a number greater than 0, got ${requestsPerSecond}`);
  }
  const limit = Math.max(1, Math.floor(requestsPerSecond));
  return { limit, windowMs: (1000 * limit) / requestsPerSecond + JITTER_MARGIN_MS };
}

/** The pacer of one relay process (the SQLite deployment). Replicas use the Redis pacer. */
export class LocalPacer implements Pacer {
  readonly #rule: PacingRule;
  /** When each send within the last window left, or will have left at the latest; soonest first. */
  readonly #sent: { at: number }[] = [];
  readonly #waiters = new Waiters();
  readonly #now: () => number;
  /** When the next send is due on an even schedule. */
  #due = 0;
  /** When the last slot was granted: a send catching up goes no sooner than half a spacing after it. */
  #lastGrant = -Infinity;
  #pausedUntil = 0;
  #slowUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(rule: PacingRule, now: () => number = () => performance.now() + performance.timeOrigin) {
    this.#rule = rule;
    this.#now = now;
  }

  readonly slotLifetimeMs = LOCAL_SLOT_LIFETIME_MS;

  get waiting(): number {
    return this.#waiters.size;
  }

  acquire(signal?: AbortSignal, options: AcquireOptions = {}): Promise<Slot> {
    const waiting = this.#waiters.wait(signal, options);
    this.#pump();
    return waiting;
  }

  throttled(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
    this.#slowUntil = Math.max(this.#slowUntil, until + SLOW_DOWN_MS);
    this.#schedule(until - this.#now());
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#waiters.close();
  }

  #limitNow(now: number): number {
    return now < this.#slowUntil ? Math.max(1, Math.floor(this.#rule.limit * 0.9)) : this.#rule.limit;
  }

  #pump(): void {
    if (this.#timer || this.#closed) return;
    while (this.#waiters.size > 0) {
      const now = this.#now();
      if (now < this.#pausedUntil) return this.#schedule(this.#pausedUntil - now);
      while (this.#sent.length > 0 && (this.#sent[0]?.at as number) <= now - this.#rule.windowMs) this.#sent.shift();
      const limit = this.#limitNow(now);
      if (this.#sent.length >= limit) {
        const oldestThatCounts = this.#sent[this.#sent.length - limit]?.at as number;
        return this.#schedule(oldestThatCounts + this.#rule.windowMs - now);
      }
      // Even spacing: each send is due one spacing after the last was. A timer that fires late lets
      // the sends it delayed catch up at twice the rate, instead of losing the time for good; later
      // than that (the pacer was idle, or waited long on the window), the schedule starts again
      // from now. Never at once: sends that left together would arrive bunched, and the window
      // would let them out together again one window later, and every window after.
      const spacing = this.#rule.windowMs / limit;
      const next = Math.max(this.#due, this.#lastGrant + spacing / 2);
      if (now < next) return this.#schedule(next - now);
      this.#due = (now - this.#due > spacing * CATCH_UP ? now : this.#due) + spacing;
      this.#lastGrant = now;
      const entry = { at: now + this.slotLifetimeMs + WRITE_DEADLINE_MS };
      this.#sent.push(entry);
      this.#waiters.grant({ grantedAt: performance.now(), release: () => this.#release(entry) });
    }
  }

  /**
   * A slot's request was written now, or never will be: the log counts it from now, which is sooner
   * than the latest it could have left, and may let a waiting call go sooner. Entries only ever move
   * sooner, so a second release changes nothing.
   */
  #release(entry: { at: number }): void {
    const now = this.#now();
    if (now >= entry.at) return;
    entry.at = now;
    this.#sent.sort((a, b) => a.at - b.at);
    if (this.#timer && this.#waiters.size > 0 && !this.#closed) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#pump();
    }
  }

  #schedule(delayMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#pump();
      },
      Math.max(0, Math.ceil(delayMs)),
    );
  }
}
