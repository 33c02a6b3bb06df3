import fc from "fast-check";
import { JITTER_MARGIN_MS, LocalPacer, Slot, WRITE_DEADLINE_MS, pacingRule } from "../../src/relay/pacing/pacer";
import { maxInWindow } from "./pacer-cases";

/**
 * The account's limit by construction: whatever the timers do, at most 100 sends in any 1-s window,
 * and the jitter margin on top left whole. A fake clock drives the pacer; the process "stalls" at
 * random (the clock jumps while no timer runs, so every timer due meanwhile fires late at once);
 * callers arrive in random bursts, some renew a slot ahead of the queue, some leave, the service
 * throttles now and then; and each caller sends as the gateway does: it hands its request over at
 * some moment within its slot's lifetime, or releases the slot and takes a new one ahead of the
 * queue when a stall made the first too old; the request is written then, or once its connection
 * has opened (seconds later, at times past the write deadline: then never, as upstream.ts gives it
 * up), and the slot is released.
 */
const step = fc.record({
  arrivals: fc.nat({ max: 60 }),
  runMs: fc.integer({ min: 0, max: 400 }),
  stallMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1500 })),
  throttleMs: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2000 })),
  firsts: fc.nat({ max: 5 }),
  aborts: fc.nat({ max: 5 }),
  /** Where within its slot's lifetime each caller of this step sends (0: at once, 1: at its end), in turn. */
  sendsAt: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
  /** How long each caller's connection takes to open before its request is written, ms, in turn. */
  connectMs: fc.array(
    fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 1500 }),
      fc.integer({ min: 1500, max: WRITE_DEADLINE_MS + 2000 }),
    ),
    { minLength: 1, maxLength: 8 },
  ),
});

describe("the local pacer keeps the window under any timer stalls", () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  test("at most 100 sends in every 1-s window, with callers arriving in bursts and timers firing late", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        let stalled = 0;
        const now = () => Date.now() + stalled;
        const pacer = new LocalPacer(pacingRule(100), now);
        const sent: number[] = [];
        let handedOver = 0;
        const sendOn = async (first: Slot, delayFraction: number, connectMs: number) => {
          let slot = first;
          let grantedAt = now();
          await new Promise((r) => setTimeout(r, Math.round(delayFraction * pacer.slotLifetimeMs)));
          while (now() - grantedAt > pacer.slotLifetimeMs) {
            slot.release();
            slot = await pacer.acquire(undefined, { first: true });
            grantedAt = now();
          }
          const handedAt = now();
          handedOver++;
          if (connectMs > 0) await new Promise((r) => setTimeout(r, connectMs));
          // As upstream.ts: a request its connection takes past the write deadline is never written.
          if (now() - handedAt <= WRITE_DEADLINE_MS) sent.push(now());
          slot.release();
        };
        const send = (s: { sendsAt: number[]; connectMs: number[] }, i: number) => (slot: Slot) =>
          sendOn(slot, s.sendsAt[i % s.sendsAt.length] as number, s.connectMs[i % s.connectMs.length] as number);
        const waiting: Promise<void>[] = [];
        for (const s of steps) {
          for (let i = 0; i < s.arrivals; i++) waiting.push(pacer.acquire().then(send(s, i)));
          for (let i = 0; i < s.firsts; i++) waiting.push(pacer.acquire(undefined, { first: true }).then(send(s, i)));
          const c = new AbortController();
          for (let i = 0; i < s.aborts; i++) pacer.acquire(c.signal).then(send(s, i), () => undefined);
          if (s.throttleMs >= 0) pacer.throttled(now() + s.throttleMs);
          await jest.advanceTimersByTimeAsync(s.runMs / 2);
          c.abort();
          await jest.advanceTimersByTimeAsync(s.runMs / 2);
          stalled += s.stallMs;
          await jest.advanceTimersByTimeAsync(0);
        }
        await jest.advanceTimersByTimeAsync(120_000);
        await Promise.all(waiting);
        await pacer.close();
        expect(handedOver).toBeGreaterThanOrEqual(waiting.length);
        sent.sort((a, b) => a - b);
        expect(maxInWindow(sent, 1000)).toBeLessThanOrEqual(100);
        expect(maxInWindow(sent, 1000 + JITTER_MARGIN_MS)).toBeLessThanOrEqual(100);
      }),
      { numRuns: 200 },
    );
  });
});

describe("the log counts a send from when it left, or from the latest it could leave", () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  /** When the last of `n` callers, queued at once, is granted, ms after the first; each releases its slot at once if `sends`. */
  async function lastGrant(n: number, sends: boolean): Promise<number> {
    const pacer = new LocalPacer(pacingRule(100), () => Date.now());
    const start = Date.now();
    let last = 0;
    const all = Array.from({ length: n }, () =>
      pacer.acquire().then((slot) => {
        if (sends) slot.release();
        last = Date.now();
      }),
    );
    await jest.advanceTimersByTimeAsync(300_000);
    await Promise.all(all);
    await pacer.close();
    return last - start;
  }

  test("1,001 callers that send as soon as they are granted are through in 10 windows of 1 s plus the jitter margin", async () => {
    const elapsed = await lastGrant(1001, true);
    expect(elapsed).toBeGreaterThanOrEqual(10 * (1000 + JITTER_MARGIN_MS));
    expect(elapsed).toBeLessThanOrEqual(10 * (1000 + JITTER_MARGIN_MS) + 10);
  });

  test("a slot never released counts until its lifetime and the write deadline are over", async () => {
    const elapsed = await lastGrant(301, false);
    const latestWrite = new LocalPacer(pacingRule(100)).slotLifetimeMs + WRITE_DEADLINE_MS;
    expect(elapsed).toBeGreaterThanOrEqual(3 * (1000 + JITTER_MARGIN_MS + latestWrite));
  });
});
