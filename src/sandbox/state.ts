import { CreateRequest, Operation, Strategy } from "../contract";
import { Place } from "./markets";
import { AiApplied } from "./model";

/**
 * An analysis the sandbox created, kept per API key like the live service's. What it needs to be
 * built again, not the analysis itself: the model is deterministic, so the same inputs give the same
 * analysis (Sandbox.analysis), and a sandbox that made 10,000 analyses holds a few megabytes rather
 * than a gigabyte of comparables.
 */
export interface StoredAnalysis {
  id: string;
  /** The key that created it: enhance with another key gets 404. */
  apiKey: string;
  strategy: Strategy;
  request: CreateRequest;
  place: Place;
  /** Canonical form of the create request: what AI outcomes and timings are fixed by. */
  subject: string;
  applied: AiApplied;
  /** The warnings of the call that last changed it, as text, for the report page. */
  warnings: string[];
  createdAt: number;
}

/** One line of the sandbox's bill: what the live service would charge the key for one call. */
export interface BillingEntry {
  at: number;
  apiKey: string;
  op: Operation;
  reports: number;
  aiFunctions: number;
  cents: number;
  analysisId?: string;
  subject: string;
}

/** A sliding one-second window of accepted calls per key (spec: "throttled at 100 requests per second"). */
export class Throttle {
  readonly #windowMs: number;
  readonly #log = new Map<string, number[]>();

  constructor(windowMs = 1000) {
    this.#windowMs = windowMs;
  }

  /** Admits a call, or says how many milliseconds until one would be admitted. */
  admit(key: string, limit: number, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    let log = this.#log.get(key);
    if (!log) this.#log.set(key, (log = []));
    while (log.length > 0 && (log[0] as number) <= now - this.#windowMs) log.shift();
    if (log.length >= limit)
      return { ok: false, retryAfterMs: Math.max(1, (log[log.length - limit] as number) + this.#windowMs - now) };
    log.push(now);
    return { ok: true };
  }

  clear(): void {
    this.#log.clear();
  }
}

/** Everything the sandbox remembers: analyses, the bill, and what it saw (for tests and benchmarks). */
export class SandboxState {
  readonly analyses = new Map<string, StoredAnalysis>();
  readonly billing: BillingEntry[] = [];
  /** Arrival time (ms) of every call to an API route, in order. */
  readonly arrivals: number[] = [];
  readonly statuses = new Map<number, number>();
  /** Creates per key and canonical request: above 1 means the same report was bought twice. */
  readonly creates = new Map<string, number>();
  readonly throttle = new Throttle();
  /** Connections destroyed on purpose (fault injection). */
  dropped = { beforeProcess: 0, afterProcess: 0 };

  recordStatus(status: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  bill(entry: BillingEntry): void {
    this.billing.push(entry);
  }

  recordCreate(apiKey: string, subject: string): void {
    const key = `${apiKey}\u0000${subject}`;
    this.creates.set(key, (this.creates.get(key) ?? 0) + 1);
  }

  /** The most calls that arrived within any window of `windowMs` milliseconds. */
  maxInWindow(windowMs = 1000): number {
    let best = 0;
    let start = 0;
    for (let end = 0; end < this.arrivals.length; end++) {
      while ((this.arrivals[end] as number) - (this.arrivals[start] as number) >= windowMs) start++;
      best = Math.max(best, end - start + 1);
    }
    return best;
  }

  /** Totals of the bill, for one key or all. */
  totals(apiKey?: string): { calls: number; reports: number; aiFunctions: number; cents: number } {
    const t = { calls: 0, reports: 0, aiFunctions: 0, cents: 0 };
    for (const e of this.billing) {
      if (apiKey !== undefined && e.apiKey !== apiKey) continue;
      t.calls++;
      t.reports += e.reports;
      t.aiFunctions += e.aiFunctions;
      t.cents += e.cents;
    }
    return t;
  }

  /** Requests created more than once (same key, same canonical request). */
  duplicateCreates(): number {
    let n = 0;
    for (const count of this.creates.values()) if (count > 1) n += count - 1;
    return n;
  }

  reset(): void {
    this.analyses.clear();
    this.billing.length = 0;
    this.arrivals.length = 0;
    this.statuses.clear();
    this.creates.clear();
    this.throttle.clear();
    this.dropped = { beforeProcess: 0, afterProcess: 0 };
  }
}

/** How a key appears in anything the sandbox shows: never whole. */
export function keyFingerprint(apiKey: string): string {
  return `${apiKey.slice(0, 3)}…${apiKey.slice(-4)}`;
}
