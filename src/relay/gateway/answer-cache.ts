import { createHash } from "node:crypto";
import {
  AnyRequest,
  NormalizedEnvelope,
  Operation,
  RelayAnswer,
  canonicalRequest,
  centsToUSD,
  isAnswerToKeep,
  isCreate,
  markedUpToDate,
} from "../../contract";
import { RelayMetrics } from "../ops/metrics";
import { CacheReadOptions, CachedAnswer, LastCall, RelayStore, StoredAnalysis } from "../store/store";
import { StoreCall } from "./store-call";

/*
 * Answers the relay has paid for: kept under their request (the cache) and by analysis id (the
 * stored analyses), and given back as the relay's answer shape. A repeated request is answered
 * from here at no cost; an answer the cache lost is given back from the analysis the ledger names.
 */

/** A request's cache key: the hash of its canonical form, so requests that mean the same share one entry. */
export function cacheKeyOf(op: Operation, request: AnyRequest): string {
  return createHash("sha256").update(canonicalRequest(op, request)).digest("hex");
}

export interface AnswerCacheOptions {
  store: RelayStore;
  metrics: RelayMetrics;
  /** True on the embedded sandbox: every answer says so. */
  sandbox: boolean;
  /** Cached answers older than this are fetched again; undefined: never. */
  cacheTtlMs: number | undefined;
  storeCall: StoreCall;
}

export class AnswerCache {
  readonly #o: AnswerCacheOptions;

  constructor(options: AnswerCacheOptions) {
    this.#o = options;
  }

  /** A fresh cached answer, or undefined. */
  async read(key: string, options?: CacheReadOptions): Promise<CachedAnswer | undefined> {
    const hit = await this.#o.storeCall(() => this.#o.store.cache.get(key, options));
    if (!hit || this.#expired(hit.fetchedAt)) return undefined;
    return hit;
  }

  /**
   * The answer a billed last call left, from the analysis the ledger names, when the cache lost it
   * (its write failed, or the cache's store was away). Within the cache's lifetime only: past it,
   * fetching again is what the user configured. Reads only; `restore` puts it back in the cache.
   */
  async fromLedger(key: string, last: LastCall | undefined): Promise<CachedAnswer | undefined> {
    if (last?.state !== "billed" || !last.analysisId || last.finishedAt === undefined || this.#expired(last.finishedAt))
      return undefined;
    const id = last.analysisId;
    const stored = await this.#o.storeCall(() => this.#o.store.analyses.get(id));
    if (!stored) return undefined;
    // When the analysis was fetched, not when its ledger row was settled (after it was kept).
    return {
      key,
      op: last.op,
      envelope: envelopeOf(stored),
      analysisId: id,
      fetchedAt: stored.updatedAt,
      costCents: 0,
    };
  }

  /** Puts an answer given back from the ledger into the cache again (best effort). */
  async restore(entry: CachedAnswer): Promise<void> {
    await this.#o.store.cache.put(entry).catch(() => undefined);
  }

  /** A stored analysis by id, as a cached answer, or undefined. */
  async stored(id: string): Promise<Pick<CachedAnswer, "envelope" | "fetchedAt" | "op"> | undefined> {
    const stored = await this.#o.storeCall(() => this.#o.store.analyses.get(id));
    return stored ? { envelope: envelopeOf(stored), fetchedAt: stored.updatedAt, op: stored.op } : undefined;
  }

  /** Stores the analysis by id and the answer under its request, then answers. */
  async keep(
    op: Operation,
    key: string,
    envelope: NormalizedEnvelope,
    costCents: number,
    callId: string,
  ): Promise<RelayAnswer> {
    const fetchedAt = Date.now();
    const id = envelope.data?._id;
    const entry: CachedAnswer = {
      key,
      op,
      envelope: {
        success: envelope.success,
        data: envelope.data,
        warnings: envelope.warnings,
        extra: envelope.extra,
        notes: envelope.notes,
      },
      analysisId: id,
      fetchedAt,
      costCents,
      callId,
    };
    // A free failure (an enhance whose every AI step failed) is answered, not kept: asking again may succeed.
    if (!isAnswerToKeep(envelope)) return this.answerOf(entry, { cached: false, costCents });
    // Two writes, each on its own: with replicas they go to different servers (the cache to Redis,
    // the analysis to Postgres), and one being away must not cost the other. Billed and answered
    // either way; a lost cache entry is given back from the analysis (fromLedger).
    if (envelope.data && id) {
      const data = envelope.data;
      try {
        const previous = isCreate(op) ? undefined : await this.#o.store.analyses.get(id);
        await this.#o.store.analyses.put({
          id,
          op,
          strategy: isCreate(op) ? op : previous?.strategy,
          data,
          warnings: envelope.warnings ?? [],
          updatedAt: fetchedAt,
        });
      } catch {
        // GET /v1/analyses/:id misses it until it is fetched again; the cache still answers.
      }
    }
    await this.#o.store.cache.put(entry).catch(() => undefined);
    return this.answerOf(entry, { cached: false, costCents });
  }

  /**
   * A cache hit as the relay's answer: free, and counted; but the answer of the call a pending item
   * asks for again by name (`call`) is that item's own, with what the call cost.
   */
  hit(entry: Pick<CachedAnswer, "envelope" | "fetchedAt" | "op" | "callId" | "costCents">, call?: string): RelayAnswer {
    if (call !== undefined && entry.callId === call)
      return this.answerOf(entry, { cached: false, costCents: entry.costCents });
    this.#o.metrics.cacheHits.inc();
    return this.answerOf(entry, { cached: true, costCents: 0 });
  }

  /** The relay's answer: the service's envelope (with anything extra it sent) plus `relay`. */
  answerOf(
    entry: Pick<CachedAnswer, "envelope" | "fetchedAt" | "op">,
    meta: { cached: boolean; costCents: number },
  ): RelayAnswer {
    const { envelope } = entry;
    return {
      ...envelope.extra,
      success: envelope.success,
      ...(envelope.data ? { data: markedUpToDate(envelope.data) } : {}),
      ...(envelope.warnings && envelope.warnings.length > 0 ? { warnings: envelope.warnings } : {}),
      relay: {
        cached: meta.cached,
        costUSD: centsToUSD(meta.costCents),
        sandbox: this.#o.sandbox,
        fetchedAt: new Date(entry.fetchedAt).toISOString(),
        operation: entry.op,
        ...(envelope.notes.length > 0 ? { normalized: envelope.notes } : {}),
      },
    };
  }

  #expired(fetchedAt: number): boolean {
    return this.#o.cacheTtlMs !== undefined && Date.now() - fetchedAt >= this.#o.cacheTtlMs;
  }
}

/** A stored analysis as the envelope it came in (what the relay knows of it: data and warnings). */
function envelopeOf(stored: StoredAnalysis): CachedAnswer["envelope"] {
  return { success: true, data: stored.data, warnings: stored.warnings, extra: {}, notes: [] };
}

/** The answer with at most `max` comparables (AnalyzeOptions.maxComparables). */
export function limitComparables(answer: RelayAnswer, max: number | undefined): RelayAnswer {
  const data = answer.data;
  if (max === undefined || !data || !Array.isArray(data.comparables) || data.comparables.length <= max) return answer;
  return { ...answer, data: { ...data, comparables: data.comparables.slice(0, max) } };
}

/**
 * Whether a cached answer answers this ask: any fresh one a plain request; for a refresh, one
 * fetched since it was asked for, or the one its pending line named (compared by name, not by
 * clocks that may differ across replicas).
 */
export function answers(
  hit: CachedAnswer,
  ask: { refresh: boolean; freshSince: number | undefined; call: string | undefined },
): boolean {
  if (ask.call !== undefined && hit.callId === ask.call) return true;
  if (!ask.refresh) return true;
  return ask.freshSince !== undefined && hit.fetchedAt >= ask.freshSince;
}
