import {
  DEFAULT_RETRY_POLICY,
  backoffMs,
  retryAfterMs,
  retryVerdict,
  serviceWaitMs,
} from "../../src/relay/upstream/retry-rule";
import { UpstreamFailure, UpstreamResult } from "../../src/relay/upstream/upstream-call";

const answer = (status: number, headers: Record<string, string> = {}): UpstreamResult => ({
  kind: "answer",
  status,
  headers,
  body: {},
});
const failure = (code: UpstreamFailure["code"], sent: boolean): UpstreamResult => ({
  kind: "failure",
  failure: new UpstreamFailure(code, sent, "x"),
});
const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };

describe("retry only where the service cannot have billed", () => {
  test("a connection failure before the request was written is retried, up to maxAttempts", () => {
    expect(retryVerdict(failure("UPSTREAM_CONNECT", false), 1, policy)).toMatchObject({
      retry: true,
      why: expect.stringMatching(/never reached the service whole/),
    });
    expect(retryVerdict(failure("UPSTREAM_RESET", false), 2, policy).retry).toBe(true);
    expect(retryVerdict(failure("UPSTREAM_CONNECT", false), 3, policy).retry).toBe(false);
  });

  test("anything that went wrong after the request was written is never retried", () => {
    for (const code of ["UPSTREAM_RESET", "UPSTREAM_TIMEOUT", "UPSTREAM_TOO_LARGE"] as const) {
      expect(retryVerdict(failure(code, true), 1, policy)).toMatchObject({
        retry: false,
        why: expect.stringMatching(/could bill twice/),
      });
    }
    expect(retryVerdict(failure("UPSTREAM_ABORTED", false), 1, policy).retry).toBe(false);
  });

  test("429 is always retried, after Retry-After when given", () => {
    expect(retryVerdict(answer(429, { "retry-after": "2" }), 1, policy)).toMatchObject({ retry: true, delayMs: 2000 });
    expect(retryVerdict(answer(429), 50, policy).retry).toBe(true);
  });

  test("a Retry-After below 1 s counts as 1 s, and each repeat waits twice as long, at most 60 s", () => {
    for (const header of ["0", "-5", "0.2", new Date(0).toUTCString()]) {
      expect([header, retryVerdict(answer(429, { "retry-after": header }), 1, policy).delayMs]).toEqual([header, 1000]);
    }
    const zero = (attempt: number) => retryVerdict(answer(429, { "retry-after": "0" }), attempt, policy).delayMs;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map(zero)).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
    // What the service asks for stands when it is longer; a 503's Retry-After has the same floor.
    expect(serviceWaitMs("30", 2)).toBe(30_000);
    expect(retryVerdict(answer(503, { "retry-after": "0" }), 2, policy).delayMs).toBe(2000);
    expect(serviceWaitMs(undefined, 3)).toBeUndefined();
  });

  test("503 is retried up to maxAttempts; every other status is final", () => {
    expect(retryVerdict(answer(503), 1, policy).retry).toBe(true);
    expect(retryVerdict(answer(503), 3, policy).retry).toBe(false);
    for (const status of [200, 400, 401, 404, 500, 502, 504])
      expect(retryVerdict(answer(status), 1, policy).retry).toBe(false);
  });

  test("backoff doubles up to the ceiling, with jitter in its upper half", () => {
    expect(backoffMs(1, policy, () => 0)).toBe(50);
    expect(backoffMs(1, policy, () => 1)).toBe(100);
    expect(backoffMs(3, policy, () => 1)).toBe(400);
    expect(backoffMs(10, policy, () => 1)).toBe(1000);
  });

  test("Retry-After is read as seconds or as an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000 + 5000).toUTCString(), 10_000)).toBe(5000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe("the default policy: 5 tries, 250 ms doubling to at most 8 s", () => {
  test("is 5 attempts, 250 ms base, 8 s cap", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000 });
  });

  test("a call never sent is tried 5 times in all", () => {
    const unsent = failure("UPSTREAM_CONNECT", false);
    expect([1, 2, 3, 4, 5].map((attempt) => retryVerdict(unsent, attempt).retry)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(retryVerdict(unsent, 5)).toEqual({
      retry: false,
      delayMs: 0,
      why: "the service could not be reached in 5 attempts",
    });
  });

  test("a 503 is tried 5 times in all", () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryVerdict(answer(503), attempt).retry)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(retryVerdict(answer(503), 5)).toEqual({
      retry: false,
      delayMs: 0,
      why: "the service stayed unavailable for 5 attempts",
    });
  });

  test("backoff is 250 ms doubling, capped at 8 s, in the upper half of its ceiling", () => {
    const top = (attempt: number) => backoffMs(attempt, DEFAULT_RETRY_POLICY, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(top)).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backoffMs(1, DEFAULT_RETRY_POLICY, () => 0)).toBe(125);
    expect(backoffMs(7, DEFAULT_RETRY_POLICY, () => 0)).toBe(4000);
  });

  test("without a random source the jitter stays within the upper half", () => {
    for (let i = 0; i < 20; i++) {
      const delay = retryVerdict(failure("UPSTREAM_CONNECT", false), 1).delayMs;
      expect(delay).toBeGreaterThanOrEqual(125);
      expect(delay).toBeLessThanOrEqual(250);
    }
  });
});

describe("how long to wait before a retry", () => {
  test("a connection failure waits the backoff of its attempt", () => {
    expect(retryVerdict(failure("UPSTREAM_CONNECT", false), 2, policy, () => 1)).toEqual({
      retry: true,
      delayMs: 200,
      why: "the request never reached the service whole, so it cannot have been processed or billed",
    });
  });

  test("a 503 waits its Retry-After when given", () => {
    expect(retryVerdict(answer(503, { "retry-after": "3" }), 1, policy, () => 1)).toEqual({
      retry: true,
      delayMs: 3000,
      why: "503: the service was unavailable and processed nothing (failed requests are not billed)",
    });
  });

  test("a 503 without Retry-After, or with an empty or unreadable one, waits the backoff", () => {
    for (const headers of [{}, { "retry-after": "" }, { "retry-after": "  " }, { "retry-after": "soon" }] as Record<
      string,
      string
    >[]) {
      expect(retryVerdict(answer(503, headers), 2, policy, () => 1).delayMs).toBe(200);
    }
  });

  test("a 429 waits its Retry-After, the backoff without one, and never more than a minute", () => {
    expect(retryVerdict(answer(429, { "retry-after": "" }), 3, policy, () => 1)).toEqual({
      retry: true,
      delayMs: 400,
      why: "429: the service refused the call unprocessed (throttled calls are not billed)",
    });
    expect(retryVerdict(answer(429, { "retry-after": "60" }), 1, policy).delayMs).toBe(60_000);
    expect(retryVerdict(answer(429, { "retry-after": "61" }), 1, policy).delayMs).toBe(60_000);
    expect(retryVerdict(answer(429, { "retry-after": "59" }), 1, policy).delayMs).toBe(59_000);
  });

  test("a final answer and a sent call wait nothing, and say why", () => {
    expect(retryVerdict(answer(200), 1, policy)).toEqual({ retry: false, delayMs: 0, why: "a final answer" });
    expect(retryVerdict(failure("UPSTREAM_TIMEOUT", true), 1, policy)).toEqual({
      retry: false,
      delayMs: 0,
      why: "the request was sent and may have been processed: sending it again could bill twice",
    });
    expect(retryVerdict(failure("UPSTREAM_ABORTED", true), 1, policy)).toEqual({
      retry: false,
      delayMs: 0,
      why: "the relay gave up on the call",
    });
  });

  test("backoff rounds to whole ms and treats attempt 0 as the first", () => {
    expect(backoffMs(1, { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8000 }, () => 0.5)).toBe(188);
    expect(backoffMs(0, policy, () => 1)).toBe(100);
  });
});

describe("reading Retry-After", () => {
  test.each([
    ["", undefined],
    ["   ", undefined],
    ["0", 0],
    ["1.5", 1500],
    [" 2 ", 2000],
    ["-5", 0],
    ["soon", undefined],
  ])("%p → %p ms", (header, ms) => expect(retryAfterMs(header, 0)).toBe(ms));

  test("an HTTP date is read against now, and a date past is no wait", () => {
    expect(retryAfterMs(new Date(20_000).toUTCString(), 10_000)).toBe(10_000);
    expect(retryAfterMs(new Date(5_000).toUTCString(), 10_000)).toBe(0);
    const fromNow = retryAfterMs(new Date(Date.now() + 30_000).toUTCString()) as number;
    expect(fromNow).toBeGreaterThan(28_000);
    expect(fromNow).toBeLessThanOrEqual(30_000);
  });
});
