/**
 * The relay's counters, in the Prometheus text format (GET /metrics). A handful of series is all
 * the relay has, so this is a few maps rather than a client library.
 */
type Labels = Record<string, string>;

class Counter {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = JSON.stringify(labels);
    const entry = this.#values.get(key);
    if (entry) entry.value += by;
    else this.#values.set(key, { labels, value: by });
  }

  get(labels: Labels = {}): number {
    return this.#values.get(JSON.stringify(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.#values.size === 0) lines.push(`${this.name} 0`);
    for (const { labels, value } of this.#values.values()) lines.push(`${this.name}${formatLabels(labels)} ${value}`);
    return lines.join("\n");
  }
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  return `{${entries.map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`).join(",")}}`;
}

export class RelayMetrics {
  readonly requests = new Counter("str_relay_requests_total", "HTTP requests answered, by route and status.");
  readonly cacheHits = new Counter(
    "str_relay_cache_hits_total",
    "Analyses answered from the cache (nothing sent, nothing billed).",
  );
  readonly sharedFlights = new Counter(
    "str_relay_shared_calls_total",
    "Requests that joined an identical call already in flight.",
  );
  readonly upstreamCalls = new Counter(
    "str_relay_upstream_calls_total",
    "Attempts sent to the service, by HTTP status or failure.",
  );
  readonly outcomes = new Counter(
    "str_relay_call_outcomes_total",
    "Calls to the service by ledger state (billed, free, failed, unknown).",
  );
  readonly billedCents = new Counter(
    "str_relay_billed_cents_total",
    "Cents billed by the service, by the relay's ledger.",
  );
  readonly slotsRenewed = new Counter(
    "str_relay_pacing_slots_renewed_total",
    "Send slots given up because the call could not leave soon enough after the grant (a slow store or a stalled process), then taken again.",
  );

  constructor(private readonly gauges: { queueDepth: () => number; inFlight: () => number }) {}

  render(): string {
    const gauge = (name: string, help: string, value: number) =>
      `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}`;
    return (
      [
        this.requests.render(),
        this.cacheHits.render(),
        this.sharedFlights.render(),
        this.upstreamCalls.render(),
        this.outcomes.render(),
        this.billedCents.render(),
        this.slotsRenewed.render(),
        `# HELP str_relay_billed_usd_total USD billed by the service, by the relay's ledger.\n# TYPE str_relay_billed_usd_total counter\nstr_relay_billed_usd_total ${this.billedCents.get() / 100}`,
        gauge("str_relay_upstream_queue_depth", "Calls waiting for a send slot (pacing).", this.gauges.queueDepth()),
        gauge("str_relay_upstream_in_flight", "Calls sent and not yet answered.", this.gauges.inFlight()),
      ].join("\n\n") + "\n"
    );
  }
}
