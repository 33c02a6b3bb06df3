import { ProgressStats, duration, progressReporter } from "../../src/cli/progress";

function fakeStream(isTTY: boolean) {
  const out: string[] = [];
  return { out, stream: { write: (s: string) => out.push(s), isTTY, columns: 120 } };
}

const stats = (done: number, extra: Partial<ProgressStats> = {}): ProgressStats => ({
  total: 100,
  done,
  cached: 0,
  failed: 0,
  warnings: 0,
  spentUSD: done * 0.2,
  ...extra,
});

describe("progress", () => {
  test("on a terminal: one line redrawn in place with counts, rate, time left and spend", () => {
    let now = 0;
    const { out, stream } = fakeStream(true);
    const p = progressReporter(stream, { now: () => now });
    for (let done = 0; done <= 50; done += 5) {
      now += 500;
      p.update(stats(done, { cached: 2, failed: 1, warnings: 3 }));
    }
    const last = out.at(-1) ?? "";
    expect(last.startsWith("\r\x1b[2K[")).toBe(true);
    expect(last).toContain("50/100 · cached 2 · failed 1 · ⚠ 3 · 10/s · ETA 0:05 · $10.00");
    expect(out.every((s) => !s.includes("\n"))).toBe(true);
    p.note("a message");
    expect(out.at(-2)).toBe("\r\x1b[2Ka message\n");
    p.finish(stats(100));
    expect(out.at(-1)).toBe("\n");
  });

  test("elsewhere: a plain line every tenth of the rows, and a last one", () => {
    let now = 0;
    const { out, stream } = fakeStream(false);
    const p = progressReporter(stream, { now: () => now });
    for (let done = 1; done <= 100; done++) {
      now += 10;
      p.update(stats(done));
    }
    p.finish(stats(100));
    expect(out).toHaveLength(10);
    expect(out.every((line) => line.startsWith("progress ") && line.endsWith("\n"))).toBe(true);
    expect(out.at(-1)).toMatch(/^progress 100\/100 · cached 0 · failed 0 · ⚠ 0 · .*\$20\.00\n$/);
  });

  test("elsewhere: a line after a long silence even without a new tenth", () => {
    let now = 0;
    const { out, stream } = fakeStream(false);
    const p = progressReporter(stream, { now: () => now, everyMs: 10_000 });
    p.update(stats(1));
    now = 11_000;
    p.update(stats(2));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^progress 2\/100/);
    p.finish(stats(2));
  });

  test("durations read as m:ss or h:mm:ss", () => {
    expect(duration(5)).toBe("0:05");
    expect(duration(75)).toBe("1:15");
    expect(duration(3700)).toBe("1:01:40");
  });

  test("on a terminal: a count past the total draws a full bar instead of throwing", () => {
    const { out, stream } = fakeStream(true);
    const p = progressReporter(stream, { now: () => 0 });
    expect(() => p.update(stats(120))).not.toThrow();
    expect(() => p.finish(stats(-3))).not.toThrow();
    expect(out.join("")).toContain("120/100");
  });
});
