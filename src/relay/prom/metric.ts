/** prom-client's metric classes and registry, as far as the relay uses them (see index.ts). */
/** As prom-client types them: a metric without labels (`never`) takes none, not even `{}`. */
export type LabelValues<T extends string> = T extends never
  ? Partial<Record<string, never>>
  : Partial<Record<T, string | number>>;

export interface MetricValue<T extends string> {
  value: number;
  labels: LabelValues<T>;
  metricName?: string;
}

export interface MetricObjectWithValues<T extends string> {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  values: MetricValue<T>[];
}

export interface MetricConfiguration<T extends string, Self> {
  name: string;
  help: string;
  labelNames?: readonly T[];
  /** Registries to join; prom-client's default is its global registry (`register`). */
  registers?: Registry[];
  /** Runs before each read: sets the values of a metric that is measured rather than counted. */
  collect?: (this: Self) => void | Promise<void>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export class Registry {
  static readonly PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly #metrics = new Map<string, Metric<string, unknown>>();

  registerMetric(metric: Metric<string, unknown>): void {
    const existing = this.#metrics.get(metric.name);
    if (existing !== undefined && existing !== metric)
      throw new Error(`A metric with the name ${metric.name} has already been registered.`);
    this.#metrics.set(metric.name, metric);
  }

  /** Every metric in the Prometheus text format, in the order registered. */
  async metrics(): Promise<string> {
    const texts = await Promise.all([...this.#metrics.values()].map(async (m) => exposition(await m.get())));
    return `${texts.join("\n\n")}\n`;
  }
}

/** prom-client's global registry, used when a metric names no `registers`. */
export const register = new Registry();

abstract class Metric<T extends string, Self> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly T[];
  abstract readonly type: MetricObjectWithValues<T>["type"];
  readonly #collect: ((this: Self) => void | Promise<void>) | undefined;

  constructor(config: MetricConfiguration<T, Self>) {
    if (!NAME.test(config.name)) throw new Error("Invalid metric name");
    this.labelNames = config.labelNames ?? [];
    for (const label of this.labelNames) if (!LABEL.test(label)) throw new Error("Invalid label name");
    this.name = config.name;
    this.help = config.help;
    this.#collect = config.collect;
    for (const registry of config.registers ?? [register]) registry.registerMetric(this as Metric<string, unknown>);
  }

  async get(): Promise<MetricObjectWithValues<T>> {
    if (this.#collect) await this.#collect.call(this as unknown as Self);
    return { name: this.name, help: this.help, type: this.type, values: this.values() };
  }

  protected abstract values(): MetricValue<T>[];

  /** The series key of a label set, after checking every label is one declared. */
  protected keyOf(labels: Labels): string {
    for (const name of Object.keys(labels))
      if (!this.labelNames.includes(name as T))
        throw new Error(
          `Added label "${name}" is not included in initial labelset: ${JSON.stringify(this.labelNames)}`,
        );
    return this.labelNames.map((n) => String(labels[n] ?? "")).join("\u0000");
  }
}

/** (labels, value) or (value) — prom-client's overloads. */
function split<T extends string>(a?: LabelValues<T> | number, b?: number): [Labels, number | undefined] {
  return typeof a === "object" ? [a as Labels, b] : [{}, a];
}

/** Labels as kept inside; the public signatures type them by the metric's label names. */
type Labels = Record<string, string | number | undefined>;
const typed = <T extends string>(labels: Labels) => labels as LabelValues<T>;

abstract class SingleValue<T extends string, Self> extends Metric<T, Self> {
  protected readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(config: MetricConfiguration<T, Self>) {
    super(config);
    // A metric without labels has one series from the start, at 0, as in prom-client.
    if (this.labelNames.length === 0) this.series.set("", { labels: {}, value: 0 });
  }

  protected add(labels: Labels, by: number): void {
    const key = this.keyOf(labels);
    const entry = this.series.get(key);
    if (entry) entry.value += by;
    else this.series.set(key, { labels: { ...labels }, value: by });
  }

  protected values(): MetricValue<T>[] {
    return [...this.series.values()].map((v) => ({ labels: typed<T>({ ...v.labels }), value: v.value }));
  }

  reset(): void {
    this.series.clear();
    if (this.labelNames.length === 0) this.series.set("", { labels: {}, value: 0 });
  }
}

export class Counter<T extends string = never> extends SingleValue<T, Counter<T>> {
  readonly type = "counter";

  inc(labels?: LabelValues<T> | number, value?: number): void {
    const [l, v = 1] = split(labels, value);
    if (!Number.isFinite(v) || v < 0) throw new Error("It is not possible to decrease a counter");
    this.add(l, v);
  }
}

export class Gauge<T extends string = never> extends SingleValue<T, Gauge<T>> {
  readonly type = "gauge";

  set(labels: LabelValues<T> | number, value?: number): void {
    const [l, v] = split(labels, value);
    this.series.set(this.keyOf(l), { labels: { ...l }, value: v ?? 0 });
  }

  inc(labels?: LabelValues<T> | number, value?: number): void {
    const [l, v = 1] = split(labels, value);
    this.add(l, v);
  }

  dec(labels?: LabelValues<T> | number, value?: number): void {
    const [l, v = 1] = split(labels, value);
    this.add(l, -v);
  }
}

export interface HistogramConfiguration<T extends string> extends MetricConfiguration<T, Histogram<T>> {
  buckets?: number[];
}

interface HistogramSeries {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<T extends string = never> extends Metric<T, Histogram<T>> {
  readonly type = "histogram";
  readonly upperBounds: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  constructor(config: HistogramConfiguration<T>) {
    super(config);
    if (this.labelNames.includes("le" as T)) throw new Error("le is a reserved label keyword");
    this.upperBounds = [...(config.buckets ?? [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])].sort(
      (a, b) => a - b,
    );
    if (this.labelNames.length === 0) this.#series.set("", this.#empty({}));
  }

  observe(labels: LabelValues<T> | number, value?: number): void {
    const [l, v] = split(labels, value);
    if (v === undefined || !Number.isFinite(v)) throw new Error(`Value is not a valid number: ${v}`);
    const key = this.keyOf(l);
    const s = this.#series.get(key) ?? this.#empty(l);
    this.#series.set(key, s);
    const at = this.upperBounds.findIndex((bound) => v <= bound);
    if (at >= 0) s.counts[at] = (s.counts[at] ?? 0) + 1;
    s.sum += v;
    s.count += 1;
  }

  /** Starts a timer; the function it returns observes the seconds since, and returns them. */
  startTimer(labels?: LabelValues<T>): (more?: LabelValues<T>) => number {
    const start = process.hrtime.bigint();
    return (more) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      this.observe(typed<T>({ ...(labels as Labels), ...(more as Labels) }), seconds);
      return seconds;
    };
  }

  reset(): void {
    this.#series.clear();
    if (this.labelNames.length === 0) this.#series.set("", this.#empty({}));
  }

  protected values(): MetricValue<T>[] {
    const out: MetricValue<T>[] = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, i) => {
        cumulative += s.counts[i] ?? 0;
        out.push({
          metricName: `${this.name}_bucket`,
          labels: typed<T>({ le: bound, ...s.labels }),
          value: cumulative,
        });
      });
      out.push({ metricName: `${this.name}_bucket`, labels: typed<T>({ le: "+Inf", ...s.labels }), value: s.count });
      out.push({ metricName: `${this.name}_sum`, labels: typed<T>({ ...s.labels }), value: s.sum });
      out.push({ metricName: `${this.name}_count`, labels: typed<T>({ ...s.labels }), value: s.count });
    }
    return out;
  }

  #empty(labels: Labels): HistogramSeries {
    return { labels: { ...labels }, counts: this.upperBounds.map(() => 0), sum: 0, count: 0 };
  }
}

function exposition(metric: MetricObjectWithValues<string>): string {
  const lines = [`# HELP ${metric.name} ${escape(metric.help)}`, `# TYPE ${metric.name} ${metric.type}`];
  for (const v of metric.values) {
    const labels = Object.entries(v.labels)
      .filter(([, value]) => value !== undefined)
      .map(([k, value]) => `${k}="${escape(String(value)).replace(/"/g, '\\"')}"`);
    lines.push(`${v.metricName ?? metric.name}${labels.length ? `{${labels.join(",")}}` : ""} ${valueText(v.value)}`);
  }
  return lines.join("\n");
}

function escape(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function valueText(value: number): string {
  if (Number.isFinite(value)) return `${value}`;
  return Number.isNaN(value) ? "Nan" : value < 0 ? "-Inf" : "+Inf";
}
