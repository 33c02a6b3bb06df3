import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/*
 * The relay's metrics (GET /metrics, Prometheus text): the process's defaults, the HTTP requests by
 * route pattern, calls to the service and their latency, analyses by outcome code, the cache, the
 * budget left and the pacing queue. docs/relay.md (Metrics) lists every series.
 */

/** What the gauges read at each scrape. */
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

/** Each series' name and help text (docs/relay.md lists them), in the order /metrics shows them. */
const SERIES = {
  requests: { name: "str_relay_requests_total", help: "HTTP requests answered, by route and status." },
  requestDuration: {
    name: "str_relay_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route pattern and status.",
  },
  items: {
    name: "str_relay_items_total",
    help: "Analyses answered (single requests and batch items), by outcome code: OK, PENDING or the STR_* error code.",
  },
  cacheHits: {
    name: "str_relay_cache_hits_total",
    help: "Analyses answered from the cache (nothing sent, nothing billed).",
  },
  cacheMisses: {
    name: "str_relay_cache_misses_total",
    help: "Analyses answered that the cache could not answer (sent to the service, or shared a call in flight).",
  },
  cacheHitRatio: {
    name: "str_relay_cache_hit_ratio",
    help: "Cache hits over hits and misses since the relay started (0 before any).",
  },
  sharedFlights: {
    name: "str_relay_shared_calls_total",
    help: "Requests that joined an identical call already in flight.",
  },
  upstreamCalls: {
    name: "str_relay_upstream_calls_total",
    help: "Attempts sent to the service, by HTTP status or failure.",
  },
  upstreamDuration: {
    name: "str_relay_upstream_duration_seconds",
    help: "Time from sending an attempt to the service to its answer or failure, by operation and status.",
  },
  upstreamRetries: {
    name: "str_relay_upstream_retries_total",
    help: "Attempts sent again, by the status or failure of the attempt before.",
  },
  outcomes: {
    name: "str_relay_call_outcomes_total",
    help: "Calls to the service by ledger state (billed, free, failed, unknown).",
  },
  billedCents: { name: "str_relay_billed_cents_total", help: "Cents billed by the service, by the relay's ledger." },
  billedUSD: { name: "str_relay_billed_usd_total", help: "USD billed by the service, by the relay's ledger." },
  slotsRenewed: {
    name: "str_relay_pacing_slots_renewed_total",
    help: "Send slots given up because the call could not leave soon enough after the grant (a slow store or a stalled process), then taken again.",
  },
  queueDepth: { name: "str_relay_upstream_queue_depth", help: "Calls waiting for a send slot (pacing)." },
  inFlight: { name: "str_relay_upstream_in_flight", help: "Calls sent and not yet answered." },
  budgetRemaining: {
    name: "str_relay_budget_remaining_usd",
    help: "Today's budget not yet committed (billed, unknown and in-flight calls count at their most).",
  },
};

type Series = { name: string; help: string };

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
    const counter = <T extends string>(series: Series, labelNames: T[] = []) =>
      new Counter<T>({ ...series, labelNames, registers });
    const gauge = (series: Series, collect: (this: Gauge) => void | Promise<void>) =>
      new Gauge({ ...series, registers, collect });
    const histogram = <T extends string>(series: Series, labelNames: T[], buckets: number[]) =>
      new Histogram<T>({ ...series, labelNames, buckets, registers });

    this.requests = counter(SERIES.requests, ["route", "status"]);
    this.requestDuration = histogram(SERIES.requestDuration, ["method", "route", "status"], REQUEST_BUCKETS);
    this.items = counter(SERIES.items, ["code"]);
    const cacheHits = (this.cacheHits = counter(SERIES.cacheHits));
    const cacheMisses = (this.cacheMisses = counter(SERIES.cacheMisses));
    gauge(SERIES.cacheHitRatio, async function () {
      const [hits, misses] = await Promise.all([total(cacheHits), total(cacheMisses)]);
      this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
    });
    this.sharedFlights = counter(SERIES.sharedFlights);
    this.upstreamCalls = counter(SERIES.upstreamCalls, ["status"]);
    this.upstreamDuration = histogram(SERIES.upstreamDuration, ["operation", "status"], UPSTREAM_BUCKETS);
    this.upstreamRetries = counter(SERIES.upstreamRetries, ["status"]);
    this.outcomes = counter(SERIES.outcomes, ["state"]);
    const billedCents = (this.billedCents = counter(SERIES.billedCents));
    new Counter({
      ...SERIES.billedUSD,
      registers,
      async collect() {
        this.reset();
        this.inc((await total(billedCents)) / 100);
      },
    });
    this.slotsRenewed = counter(SERIES.slotsRenewed);
    gauge(SERIES.queueDepth, function () {
      this.set(sources.queueDepth());
    });
    gauge(SERIES.inFlight, function () {
      this.set(sources.inFlight());
    });
    gauge(SERIES.budgetRemaining, async function () {
      // A store that does not answer leaves the last value; /healthz says the store is down.
      const cents = await sources.budgetRemainingCents().catch(() => undefined);
      if (cents !== undefined) this.set(cents / 100);
    });
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
