/**
 * The part of prom-client's API the relay uses — `Registry`, `Counter`, `Gauge`, `Histogram`,
 * `collectDefaultMetrics` — with its class names, options, async reads and text format. prom-client
 * is the intended library but is not installed in this tree yet; switching to it is changing the one
 * import in metrics.ts to "prom-client" and deleting this folder (docs/relay.md, Metrics).
 */
export { Counter, Gauge, Histogram, Registry, register } from "./metric";
export type { HistogramConfiguration, LabelValues, MetricObjectWithValues, MetricValue } from "./metric";
export { collectDefaultMetrics } from "./default-metrics";
