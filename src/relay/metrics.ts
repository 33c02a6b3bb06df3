// prom-client's API; ./prom stands in until the package is installed: then this import names "prom-client".
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * The relay's metrics (GET /metrics, Prometheus text): the process's defaults, the HTTP requests by
 * route pattern, calls to the service and their latency, analyses by outcome code, the cache, the
 * budget left and the pacing queue. docs/relay.md (Metrics) lists every series.
 */
export interface MetricSources {
  /** Calls waiting for a send slot. */
  queueDepth(): number;
  /** Calls sent and not yet answered. */
  inFlight(): number;
  /** Today's budget not yet committed. */
  budgetRemainingCents(): Promise<number>;
}

/** Seconds: the relay's own answers are milliseconds (cache) to minutes (a batch). */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds: the service takes 10–30 s for a report, and may be given up to 5 minutes. */
const UPSTREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

export class RelayMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"route" | "status">;
  readonly requestDuration: Histogram<"method" | "route" | "status">;
  readonly items: Counter<"code">;
  readonly cacheHits: Counter;
  readonly cacheMisses: Counter;
  readonly sharedFlights: Counter;
  readonly upstreamCalls: Counter<"status">;
  readonly upstreamDuration: Histogram<"operation" | "status">;
  readonly upstreamRetries: Counter<"status">;
  readonly outcomes: Counter<"state">;
  readonly billedCents: Counter;
  readonly slotsRenewed: Counter;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const counter = <T extends string>(name: string, help: string, labelNames: T[] = []) =>
      new Counter<T>({ name, help, labelNames, registers });
    const gauge = (name: string, help: string, collect: (this: Gauge) => void | Promise<void>) =>
      new Gauge({ name, help, registers, collect });

    this.requests = counter("str_relay_requests_total", "HTTP requests answered, by route and status.", [
      "route",
      "status",
    ]);
    this.requestDuration = new Histogram({
      name: "str_relay_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route pattern and status.",
      labelNames: ["method", "route", "status"],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.items = counter(
      "str_relay_items_total",
      "Analyses answered (single requests and batch items), by outcome code: OK, PENDING or the STR_* error code.",
      ["code"],
    );
    this.cacheHits = counter(
      "str_relay_cache_hits_total",
      "Analyses answered from the cache (nothing sent, nothing billed).",
    );
    this.cacheMisses = counter(
      "str_relay_cache_misses_total",
      "Analyses answered that the cache could not answer (sent to the service, or shared a call in flight).",
    );
    const { cacheHits, cacheMisses } = this;
    gauge(
      "str_relay_cache_hit_ratio",
      "Cache hits over hits and misses since the relay started (0 before any).",
      async function () {
        const [hits, misses] = await Promise.all([total(cacheHits), total(cacheMisses)]);
        this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
      },
    );
    this.sharedFlights = counter(
      "str_relay_shared_calls_total",
      "Requests that joined an identical call already in flight.",
    );
    this.upstreamCalls = counter(
      "str_relay_upstream_calls_total",
      "Attempts sent to the service, by HTTP status or failure.",
      ["status"],
    );
    this.upstreamDuration = new Histogram({
      name: "str_relay_upstream_duration_seconds",
      help: "Time from sending an attempt to the service to its answer or failure, by operation and status.",
      labelNames: ["operation", "status"],
      buckets: UPSTREAM_BUCKETS,
      registers,
    });
    this.upstreamRetries = counter(
      "str_relay_upstream_retries_total",
      "Attempts sent again, by the status or failure of the attempt before.",
      ["status"],
    );
    this.outcomes = counter(
      "str_relay_call_outcomes_total",
      "Calls to the service by ledger state (billed, free, failed, unknown).",
      ["state"],
    );
    this.billedCents = counter("str_relay_billed_cents_total", "Cents billed by the service, by the relay's ledger.");
    const billedCents = this.billedCents;
    new Counter({
      name: "str_relay_billed_usd_total",
      help: "USD billed by the service, by the relay's ledger.",
      registers,
      async collect() {
        this.reset();
        this.inc((await total(billedCents)) / 100);
      },
    });
    this.slotsRenewed = counter(
      "str_relay_pacing_slots_renewed_total",
      "Send slots given up because the call could not leave soon enough after the grant (a slow store or a stalled process), then taken again.",
    );
    gauge("str_relay_upstream_queue_depth", "Calls waiting for a send slot (pacing).", function () {
      this.set(sources.queueDepth());
    });
    gauge("str_relay_upstream_in_flight", "Calls sent and not yet answered.", function () {
      this.set(sources.inFlight());
    });
    gauge(
      "str_relay_budget_remaining_usd",
      "Today's budget not yet committed (billed, unknown and in-flight calls count at their most).",
      async function () {
        // A store that does not answer leaves the last value; /healthz says the store is down.
        const cents = await sources.budgetRemainingCents().catch(() => undefined);
        if (cents !== undefined) this.set(cents / 100);
      },
    );
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every series in the Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** A counter's or gauge's value for exactly these labels (0 when the series does not exist yet). */
  async read(metric: Readable, labels: Record<string, string> = {}): Promise<number> {
    const { values } = await metric.get();
    const same = (l: Record<string, unknown>) =>
      Object.keys(l).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => String(l[k]) === v);
    return values.find((v) => same(v.labels as Record<string, unknown>))?.value ?? 0;
  }
}

/** What a counter or a gauge gives when read (prom-client's `get()`). */
interface Readable {
  get(): Promise<{ values: { labels: object; value: number }[] }>;
}

/** A metric's series added up. */
async function total(metric: Readable): Promise<number> {
  return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
}
