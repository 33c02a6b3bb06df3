import { Pacer, PacingRule, pacingRule } from "../../src/relay/pacing/pacer";

/*
 * The behaviour every pacer has, in process (LocalPacer) or across replicas (RedisPacer): one table
 * of cases that test/relay/pacer.test.ts and test/scale/redis-pacer.test.ts both run, each with its
 * own way of making pacers that share one account.
 */

export interface PacersUnderTest {
  /** `count` pacers sharing one account's limit (replicas); the local pacer shares only with itself. */
  make(rule: PacingRule, count: number): Promise<Pacer[]>;
  /** How many pacers can share an account: 1 in process, several across replicas. */
  replicas: number;
  /** How late a grant may be seen after it was decided (a round trip to Redis, a busy machine). */
  jitterMs: number;
  /** Waits until a throttle one pacer saw reaches the others (written to Redis in the background). */
  throttleSeen?: () => Promise<void>;
}

export function maxInWindow(times: number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** Takes `n` slots spread over the pacers, recording when each was granted; each sends at once. */
export async function grantTimes(pacers: Pacer[], n: number): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      (pacers[i % pacers.length] as Pacer).acquire().then((slot) => {
        slot.release();
        times.push(performance.now());
      }),
    ),
  );
  return times.sort((a, b) => a - b);
}

/** Registers the shared cases in the calling describe block. */
export function pacerCases(under: PacersUnderTest): void {
  // How close to the rule's pace they go is bench:scale's figure ("the pacers alone"): a busy
  // machine stretches it, and cannot break these.
  test(`250 sends at 100 a second through ${under.replicas} pacer(s): no 1-second window holds more than 100, so they take at least 2 windows`, async () => {
    const pacers = await under.make(pacingRule(100), under.replicas);
    const start = performance.now();
    const times = await grantTimes(pacers, 250);
    const elapsed = performance.now() - start;
    expect(times).toHaveLength(250);
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(100);
    expect(elapsed).toBeGreaterThanOrEqual(2 * 1000);
  });

  test("a waiter whose signal aborts leaves the queue and is never granted", async () => {
    const [pacer] = (await under.make({ limit: 1, windowMs: 300 }, 1)) as [Pacer];
    (await pacer.acquire()).release();
    const controller = new AbortController();
    const aborted = pacer.acquire(controller.signal);
    const next = pacer.acquire();
    expect(pacer.waiting).toBe(2);
    controller.abort(new Error("caller left"));
    await expect(aborted).rejects.toThrow("caller left");
    expect(pacer.waiting).toBe(1);
    await next;
    expect(pacer.waiting).toBe(0);
  });

  test("after the service throttles, no pacer grants before its Retry-After, then sends run slower", async () => {
    const pacers = await under.make({ limit: 10, windowMs: 200 }, under.replicas);
    const start = performance.now();
    (pacers[0] as Pacer).throttled(Date.now() + 300);
    await under.throttleSeen?.();
    const times = await grantTimes([pacers.at(-1) as Pacer], 20);
    expect((times[0] as number) - start).toBeGreaterThanOrEqual(300 - under.jitterMs);
    // Nine tenths of 10 is 9 a window while slowed (unslowed, 10 would fit in 180 ms). Sends are
    // spaced exactly 200/9 ms apart, so the tenth is granted on the window's edge, and seen a little
    // after it.
    expect(maxInWindow(times, 200 - under.jitterMs)).toBeLessThanOrEqual(9);
  });

  test("sends a stall held up catch up at twice the rate, never at once, and the window does not let them out together later", async () => {
    // 5 per 500 ms: one every 100 ms.
    const [pacer] = (await under.make({ limit: 5, windowMs: 500 }, 1)) as [Pacer];
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 15 }, () =>
        pacer.acquire().then((slot) => {
          slot.release();
          times.push(performance.now());
          // The process stalls once, after the third send, for three and a half spacings.
          if (times.length === 3) {
            const until = performance.now() + 350;
            while (performance.now() < until);
          }
        }),
      ),
    );
    // Apart right after the stall and one window later: never a burst (a burst's sends are under a
    // millisecond apart). The pacer aims at half a spacing (50 ms), but the times are taken as each
    // caller runs, after its grant, and a busy machine holds one caller back more than the next: the
    // bound is a tenth of a spacing, not the aim.
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(10);
    expect(maxInWindow(times, 500)).toBeLessThanOrEqual(5);
  });

  test("a request written after its slot's lifetime (its connection was opening) is counted from when it was written", async () => {
    const [pacer] = (await under.make({ limit: 1, windowMs: 300 }, 1)) as [Pacer];
    const first = await pacer.acquire();
    const start = performance.now();
    await new Promise((r) => setTimeout(r, 200));
    first.release();
    const writtenAt = performance.now();
    await pacer.acquire();
    expect(performance.now() - writtenAt).toBeGreaterThanOrEqual(300 - under.jitterMs);
    expect(writtenAt - start).toBeGreaterThanOrEqual(200 - under.jitterMs);
  });

  test("a request still unwritten a window after its grant holds the window, however long its connection takes", async () => {
    // On two replicas, the one that sent has nobody else waiting: its release reaches the other all the same.
    const pacers = await under.make({ limit: 1, windowMs: 200 }, under.replicas);
    const first = await (pacers[0] as Pacer).acquire();
    let nextAt = 0;
    const next = (pacers.at(-1) as Pacer).acquire().then((slot) => {
      nextAt = performance.now();
      slot.release();
    });
    await new Promise((r) => setTimeout(r, 600));
    expect(nextAt).toBe(0);
    first.release();
    const writtenAt = performance.now();
    await next;
    expect(nextAt - writtenAt).toBeGreaterThanOrEqual(200 - under.jitterMs);
  });

  test("a slot released twice counts from its first release", async () => {
    const [pacer] = (await under.make({ limit: 1, windowMs: 600 }, 1)) as [Pacer];
    const first = await pacer.acquire();
    first.release();
    await new Promise((r) => setTimeout(r, 500));
    const secondAt = performance.now();
    first.release();
    await pacer.acquire();
    // Counted from the first release, the next goes about 100 ms after the second (at once if the
    // timer was that late); counted from the second, a whole window after it.
    expect(performance.now() - secondAt).toBeLessThan(600 - under.jitterMs);
  });

  test("closing rejects the waiters", async () => {
    const [pacer] = (await under.make({ limit: 1, windowMs: 10_000 }, 1)) as [Pacer];
    await pacer.acquire();
    const waiting = pacer.acquire();
    await pacer.close();
    await expect(waiting).rejects.toThrow(/closed/);
  });
}
