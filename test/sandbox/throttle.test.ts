import { Sandbox } from "../../src/sandbox/sandbox-server";
import { Throttle } from "../../src/sandbox/state";
import { BODIES, KEY, OTHER_KEY, billedCents, call, makeSandbox } from "./helpers";

/**
 * Throttling (spec: "throttled at 100 requests per second"; observed: 429 "key valid but
 * throttled"): counted per key over a sliding second, answered 429 with Retry-After, never billed.
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.app.close());

/** A cheap call that passes the key and the throttle, then stops at validation (400). */
const cheap = (key = KEY) => call(sandbox, "cohost", { bedrooms: -1 }, key);

describe("the default limit of 100 a second", () => {
  test("the 101st call within a second from one key is 429 with Retry-After; another key is unaffected", async () => {
    const first = await Promise.all(Array.from({ length: 100 }, () => cheap()));
    expect(first.map((r) => r.status)).toEqual(Array(100).fill(400));
    const over = await call(sandbox, "cohost", BODIES.cohost, KEY);
    expect(over.status).toBe(429);
    expect(Number(over.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(over.headers["retry-after"]))).toBe(true);
    expect(over.json).toMatchObject({ success: false, error: expect.stringMatching(/throttled/) });
    // Throttled calls are neither processed nor billed.
    expect(billedCents(sandbox)).toBe(0);
    expect(sandbox.state.analyses.size).toBe(0);
    const other = await call(sandbox, "cohost", BODIES.cohost, OTHER_KEY);
    expect(other.status).toBe(200);
    expect(billedCents(sandbox, OTHER_KEY)).toBe(20);
  });
});

describe("a lowered limit", () => {
  test("with 5 a second, calls 1–5 pass and 6–8 are 429", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(sandbox, "cohost", BODIES.cohost)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(sandbox.state.totals(KEY)).toMatchObject({ calls: 5, cents: 100 });
    expect(sandbox.state.statuses.get(429)).toBe(3);
  });

  test("each key has its own window", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 2 });
    const a = [await cheap(KEY), await cheap(KEY), await cheap(KEY)].map((r) => r.status);
    const b = [await cheap(OTHER_KEY), await cheap(OTHER_KEY), await cheap(OTHER_KEY)].map((r) => r.status);
    expect(a).toEqual([400, 400, 429]);
    expect(b).toEqual([400, 400, 429]);
  });

  test("calls without a valid key do not use up the key's allowance", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 2 });
    for (let i = 0; i < 5; i++) expect((await call(sandbox, "cohost", BODIES.cohost, null)).status).toBe(401);
    expect((await call(sandbox, "cohost", BODIES.cohost)).status).toBe(200);
  });

  test("throttled calls still count as arrivals, as they do at a service's edge", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 3 });
    await Promise.all(Array.from({ length: 7 }, () => cheap()));
    const stats = (await sandbox.app.inject({ method: "GET", url: "/__sandbox/stats" })).json();
    expect(stats.arrivals).toBe(7);
    expect(stats.maxPerSecond).toBe(7);
    expect(stats.statuses).toEqual({ 400: 3, 429: 4 });
  });

  test("a 429 in text mode is text too, with Retry-After", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 1, textErrors: true });
    await cheap();
    const r = await cheap();
    expect(r.status).toBe(429);
    expect(String(r.headers["content-type"])).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/throttled/);
    expect(r.headers["retry-after"]).toBeDefined();
  });
});

describe("the sliding window", () => {
  test("admits up to the limit, then says how long until the oldest call leaves the window", () => {
    const t = new Throttle(1000);
    for (const at of [0, 100, 200]) expect(t.admit("k", 3, at)).toEqual({ ok: true });
    expect(t.admit("k", 3, 250)).toEqual({ ok: false, retryAfterMs: 750 });
    expect(t.admit("k", 3, 999)).toEqual({ ok: false, retryAfterMs: 1 });
  });

  test("a call exactly one window after the oldest is admitted", () => {
    const t = new Throttle(1000);
    for (const at of [0, 100, 200]) t.admit("k", 3, at);
    expect(t.admit("k", 3, 1000)).toEqual({ ok: true });
    // Now 100, 200 and 1000 are in the window: the next opens when 100 leaves.
    expect(t.admit("k", 3, 1050)).toEqual({ ok: false, retryAfterMs: 50 });
    expect(t.admit("k", 3, 1100)).toEqual({ ok: true });
  });

  test("refused calls do not extend the wait", () => {
    const t = new Throttle(1000);
    t.admit("k", 1, 0);
    for (let at = 10; at < 1000; at += 10) expect(t.admit("k", 1, at).ok).toBe(false);
    expect(t.admit("k", 1, 1000)).toEqual({ ok: true });
  });

  test("keys do not share a window", () => {
    const t = new Throttle(1000);
    t.admit("a", 1, 0);
    expect(t.admit("a", 1, 1).ok).toBe(false);
    expect(t.admit("b", 1, 1)).toEqual({ ok: true });
  });

  test("a limit lowered mid-window waits for enough calls to leave", () => {
    const t = new Throttle(1000);
    for (const at of [0, 100, 200, 300]) t.admit("k", 10, at);
    // With a limit of 2 at most one call may be in the window: 0, 100 and 200 must leave; 200 leaves at 1200.
    expect(t.admit("k", 2, 400)).toEqual({ ok: false, retryAfterMs: 800 });
    expect(t.admit("k", 2, 1199).ok).toBe(false);
    expect(t.admit("k", 2, 1200)).toEqual({ ok: true });
  });

  test("clear forgets every window", () => {
    const t = new Throttle(1000);
    t.admit("k", 1, 0);
    t.clear();
    expect(t.admit("k", 1, 1)).toEqual({ ok: true });
  });
});

describe("/__sandbox/stats", () => {
  test("maxPerSecond is the most calls that arrived within any one second", () => {
    const { state } = sandbox;
    state.arrivals.push(0, 100, 200, 1150, 1190, 1195, 1199, 3000);
    // 1150–1199 plus 200 (within 1000 ms before 1199): 5; 0–200 alone: 3.
    expect(state.maxInWindow(1000)).toBe(5);
    expect(state.maxInWindow(100)).toBe(4);
  });

  test("duplicateCreates counts the same request created again by the same key", async () => {
    await call(sandbox, "cohost", BODIES.cohost);
    await call(sandbox, "cohost", { ...BODIES.cohost, fullAddress: ` ${BODIES.cohost.fullAddress.toUpperCase()} ` });
    await call(sandbox, "cohost", BODIES.cohost);
    await call(sandbox, "cohost", BODIES.cohost, OTHER_KEY);
    await call(sandbox, "cohost", { ...BODIES.cohost, bedrooms: 2 });
    await call(sandbox, "arb", BODIES.arb);
    const stats = (await sandbox.app.inject({ method: "GET", url: "/__sandbox/stats" })).json();
    expect(stats.duplicateCreates).toBe(2);
    expect(stats.analyses).toBe(6);
    expect(stats.billing).toMatchObject({ calls: 6, reports: 6, cents: 120 });
  });

  test("reset clears the bill, the analyses, the counts and the windows", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 1 });
    await call(sandbox, "cohost", BODIES.cohost);
    expect((await call(sandbox, "cohost", BODIES.cohost)).status).toBe(429);
    await sandbox.app.inject({ method: "POST", url: "/__sandbox/reset" });
    const stats = (await sandbox.app.inject({ method: "GET", url: "/__sandbox/stats" })).json();
    expect(stats).toMatchObject({
      arrivals: 0,
      maxPerSecond: 0,
      statuses: {},
      duplicateCreates: 0,
      analyses: 0,
      billing: { calls: 0, cents: 0 },
    });
    expect((await call(sandbox, "cohost", BODIES.cohost)).status).toBe(200);
  });
});
