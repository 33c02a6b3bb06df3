import { backoffMs, retryAfterMs, retryVerdict } from "../../src/relay/retry-rule";
import { UpstreamFailure, UpstreamResult } from "../../src/relay/upstream";

const answer = (status: number, headers: Record<string, string> = {}): UpstreamResult => ({ kind: "answer", status, headers, body: {} });
const failure = (code: UpstreamFailure["code"], sent: boolean): UpstreamResult => ({ kind: "failure", failure: new UpstreamFailure(code, sent, "x") });
const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };

describe("retry only where the service cannot have billed", () => {
  test("a connection failure before the request was written is retried, up to maxAttempts", () => {
    expect(retryVerdict(failure("UPSTREAM_CONNECT", false), 1, policy)).toMatchObject({ retry: true, why: expect.stringMatching(/never reached the service whole/) });
    expect(retryVerdict(failure("UPSTREAM_RESET", false), 2, policy).retry).toBe(true);
    expect(retryVerdict(failure("UPSTREAM_CONNECT", false), 3, policy).retry).toBe(false);
  });

  test("anything that went wrong after the request was written is never retried", () => {
    for (const code of ["UPSTREAM_RESET", "UPSTREAM_TIMEOUT", "UPSTREAM_TOO_LARGE"] as const) {
      expect(retryVerdict(failure(code, true), 1, policy)).toMatchObject({ retry: false, why: expect.stringMatching(/could bill twice/) });
    }
    expect(retryVerdict(failure("UPSTREAM_ABORTED", false), 1, policy).retry).toBe(false);
  });

  test("429 is always retried, after Retry-After when given", () => {
    expect(retryVerdict(answer(429, { "retry-after": "2" }), 1, policy)).toMatchObject({ retry: true, delayMs: 2000 });
    expect(retryVerdict(answer(429), 50, policy).retry).toBe(true);
  });

  test("503 is retried up to maxAttempts; every other status is final", () => {
    expect(retryVerdict(answer(503), 1, policy).retry).toBe(true);
    expect(retryVerdict(answer(503), 3, policy).retry).toBe(false);
    for (const status of [200, 400, 401, 404, 500, 502, 504]) expect(retryVerdict(answer(status), 1, policy).retry).toBe(false);
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
