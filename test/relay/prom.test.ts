import { Counter, Gauge, Histogram, Registry } from "../../src/relay/prom";

/**
 * The stand-in for prom-client (src/relay/prom) writes what prom-client writes for the same calls,
 * so switching the import changes nothing a scraper or a dashboard sees.
 */
describe("the prom-client stand-in", () => {
  test("counters, gauges and histograms in prom-client's text format", async () => {
    const registry = new Registry();
    const registers = [registry];
    const counter = new Counter({ name: "c_total", help: "A counter.", labelNames: ["code"], registers });
    counter.inc({ code: "OK" });
    counter.inc({ code: 'say "hi"\n' }, 2);
    new Gauge({ name: "g", help: "A gauge.", registers }).set(1.5);
    const histogram = new Histogram({
      name: "h_seconds",
      help: "A histogram.",
      buckets: [0.1, 1],
      labelNames: ["route"],
      registers,
    });
    histogram.observe({ route: "/a" }, 0.5);
    histogram.observe({ route: "/a" }, 0.05);
    expect(await registry.metrics()).toBe(
      [
        "# HELP c_total A counter.",
        "# TYPE c_total counter",
        'c_total{code="OK"} 1',
        'c_total{code="say \\"hi\\"\\n"} 2',
        "",
        "# HELP g A gauge.",
        "# TYPE g gauge",
        "g 1.5",
        "",
        "# HELP h_seconds A histogram.",
        "# TYPE h_seconds histogram",
        'h_seconds_bucket{le="0.1",route="/a"} 1',
        'h_seconds_bucket{le="1",route="/a"} 2',
        'h_seconds_bucket{le="+Inf",route="/a"} 2',
        'h_seconds_sum{route="/a"} 0.55',
        'h_seconds_count{route="/a"} 2',
        "",
      ].join("\n"),
    );
  });

  test("refuses what prom-client refuses: an undeclared label, a counter going down, a name taken twice", () => {
    const registry = new Registry();
    const counter = new Counter({ name: "x_total", help: "x", labelNames: ["a"], registers: [registry] });
    expect(() => counter.inc({ b: "1" } as never)).toThrow(/not included in initial labelset/);
    expect(() => counter.inc(-1)).toThrow(/not possible to decrease/);
    expect(() => new Gauge({ name: "x_total", help: "y", registers: [registry] })).toThrow(/already been registered/);
    expect(() => new Histogram({ name: "h", help: "h", labelNames: ["le"], registers: [registry] })).toThrow(
      /reserved/,
    );
  });
});
