import { AnyRequest, Operation } from "../../src/contract";
import { Outcome, outcomeOf, resendAllowed, upstreamMessage } from "../../src/relay/upstream/outcome";
import { UpstreamFailure, UpstreamFailureCode, UpstreamResult } from "../../src/relay/upstream/upstream-call";

/**
 * What each way a call can end means for money: the state the ledger records, the cents it holds
 * against the budget (billed: what was billed; unknown: the most the call could have cost; free and
 * failed: nothing), and whether the same request may be sent again without the user asking.
 * "unknown" stops an automatic resend, and so does a billed answer the relay could not use (it is
 * kept as the request's outcome); anything else is sent again.
 */

const KEY = "sk_live_secret";
const redact = (text: string) => text.replaceAll(KEY, "[REDACTED]");

const BOTH = { addAIComps: true, addAIExpenseEstimates: true };
const buy = { address: "12 Main St, Austin TX", ...BOTH } as unknown as AnyRequest;
const plainCohost = { address: "12 Main St, Austin TX" } as unknown as AnyRequest;
const enhanceBoth = { analysisId: "an_42", ...BOTH } as unknown as AnyRequest;
const enhanceComps = { analysisId: "an_42", addAIComps: true } as unknown as AnyRequest;

const answer = (status: number, body: unknown): UpstreamResult => ({ kind: "answer", status, headers: {}, body });
const failure = (code: UpstreamFailureCode, sent: boolean, message = "x"): UpstreamResult => ({
  kind: "failure",
  failure: new UpstreamFailure(code, sent, message),
});
const analysis = (warnings?: unknown[]) => ({
  success: true,
  data: { _id: "an_1" },
  ...(warnings ? { warnings } : {}),
});

const COMPS_FAILED = "addAIComps failed: the AI step could not complete; standard comparables were used. Not billed.";
const EXPENSES_FAILED = "addAIExpenseEstimates failed: the AI step could not complete. Not billed.";

type Row = {
  name: string;
  op: Operation;
  request: AnyRequest;
  result: UpstreamResult;
  state: Outcome["state"];
  held: number;
  resend: boolean;
  /** The relay error's code and message, or none when the answer is an analysis (or a warnings-only enhance). */
  code?: string;
  message?: RegExp;
};

const after = (row: Omit<Row, "name">) => row;

/** What the error body's `billing` tells the caller for each ledger state (http-api.md). */
const TOLD: Record<Outcome["state"], string> = {
  billed: "billed",
  free: "not-billed",
  failed: "not-billed",
  unknown: "unknown",
};

const ROWS: Record<string, Omit<Row, "name">> = {
  // Failures with no answer.
  "a connection refused before sending": after({
    op: "buy",
    request: buy,
    result: failure("UPSTREAM_CONNECT", false, `connect ECONNREFUSED key=${KEY}`),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^Could not reach the service: connect ECONNREFUSED key=\[REDACTED\]\. Nothing was billed\.$/,
  }),
  "a timeout before the request was written": after({
    op: "buy",
    request: buy,
    result: failure("UPSTREAM_TIMEOUT", false, "connect timeout"),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^Could not reach the service: connect timeout\. Nothing was billed\.$/,
  }),
  "a timeout after the create was sent": after({
    op: "buy",
    request: buy,
    result: failure("UPSTREAM_TIMEOUT", true),
    state: "unknown",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_TIMEOUT",
    message:
      /did not answer in time after the request was sent; it may still have created \(and billed\) the report\. Refresh explicitly/,
  }),
  "a timeout after the enhance was sent": after({
    op: "enhance",
    request: enhanceBoth,
    result: failure("UPSTREAM_TIMEOUT", true),
    state: "unknown",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_TIMEOUT",
  }),
  "a reset after the create was sent": after({
    op: "cohost",
    request: plainCohost,
    result: failure("UPSTREAM_RESET", true, `socket hang up ${KEY}`),
    state: "unknown",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
    message:
      /^socket hang up \[REDACTED\]; the service may have processed the request\. Refresh explicitly to send it again\.$/,
  }),
  "an answer too large after sending": after({
    op: "enhance",
    request: enhanceComps,
    result: failure("UPSTREAM_TOO_LARGE", true),
    state: "unknown",
    held: 10,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
  }),

  // 2xx: a create is billed its report and its completed AI functions; an enhance its completed functions.
  "200 create with its analysis": after({
    op: "buy",
    request: buy,
    result: answer(200, analysis()),
    state: "billed",
    held: 40,
    resend: true,
  }),
  "200 create with one AI function failed": after({
    op: "buy",
    request: buy,
    result: answer(200, analysis([COMPS_FAILED])),
    state: "billed",
    held: 30,
    resend: true,
  }),
  "201 create without AI": after({
    op: "cohost",
    request: plainCohost,
    result: answer(201, analysis()),
    state: "billed",
    held: 20,
    resend: true,
  }),
  "299 create without AI": after({
    op: "cohost",
    request: plainCohost,
    result: answer(299, analysis()),
    state: "billed",
    held: 20,
    resend: true,
  }),
  "200 create with no analysis (JSON)": after({
    op: "buy",
    request: buy,
    result: answer(200, { success: true, note: KEY }),
    state: "billed",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_UNUSABLE",
    message:
      /^The service answered 200 with no analysis \(\{"success":true,"note":"\[REDACTED\]"\}\); the report was billed, and the relay keeps this outcome/,
  }),
  "200 create with a text body (not the service's envelope)": after({
    op: "arb",
    request: plainCohost,
    result: answer(200, "OK"),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service's address answered 200 with something that is not the service's answer \(OK\): a proxy/,
  }),
  "200 create with a proxy's HTML page": after({
    op: "buy",
    request: buy,
    result: answer(200, "<html><body>Sign in to the guest network</body></html>"),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
  }),
  "200 create with JSON that is not the envelope (a proxy's)": after({
    op: "buy",
    request: buy,
    result: answer(200, { message: "Request blocked" }),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
  }),
  "200 create with an empty body": after({
    op: "owned",
    request: plainCohost,
    result: answer(200, undefined),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
  }),
  "200 create cut short after success: true": after({
    op: "buy",
    request: buy,
    result: answer(200, '{"success":true,"data":{"_id":"an_1","ratePerNi'),
    state: "billed",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_UNUSABLE",
    message: /an answer cut short \(\{"success":true,"data":\{"_id":"an_1","ratePerNi\)/,
  }),
  "200 create cut short after success: false": after({
    op: "buy",
    request: buy,
    result: answer(200, '{"success":false,"error":"no geoc'),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
  }),
  "200 create cut short before it said anything": after({
    op: "buy",
    request: buy,
    result: answer(200, '{"warn'),
    state: "unknown",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
  }),
  "200 create without an analysis, its sample cut to 117 characters and ...": after({
    op: "buy",
    request: plainCohost,
    result: answer(200, { success: true, note: "a".repeat(100) }),
    state: "billed",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_UNUSABLE",
    message: /\(\{"success":true,"note":"a{93}\.\.\.\)/,
  }),
  "200 create with empty data (no analysis)": after({
    op: "buy",
    request: plainCohost,
    result: answer(200, { success: true, data: {} }),
    state: "billed",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_UNUSABLE",
  }),
  "200 create with data that holds no analysis field": after({
    op: "buy",
    request: plainCohost,
    result: answer(200, { success: true, data: { status: "queued" } }),
    state: "billed",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_UNUSABLE",
  }),
  "200 create with its analysis wrapped in data.analysis": after({
    op: "buy",
    request: plainCohost,
    result: answer(200, { success: true, data: { analysis: { _id: "an_w", ratePerNightUSD: 200 } } }),
    state: "billed",
    held: 20,
    resend: true,
  }),
  "200 create with success: false and no data": after({
    op: "buy",
    request: buy,
    result: answer(200, { success: false, error: `Could not geocode the address (${KEY})` }),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message:
      /^The service answered 200 with success: false: Could not geocode the address \(\[REDACTED\]\)\. Failed requests are not billed\.$/,
  }),
  "200 create with success: false and empty data": after({
    op: "buy",
    request: plainCohost,
    result: answer(200, { success: false, data: {} }),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /success: false and no reason/,
  }),
  "200 create with success: false and an analysis (kept, its error said)": after({
    op: "buy",
    request: plainCohost,
    result: answer(200, { success: false, error: "partial", data: { _id: "an_f", ratePerNightUSD: 1 } }),
    state: "billed",
    held: 20,
    resend: true,
  }),
  "200 enhance whose analysis has no _id (answered without its figures)": after({
    op: "enhance",
    request: enhanceComps,
    result: answer(200, { success: true, data: { ratePerNightUSD: 210 } }),
    state: "billed",
    held: 10,
    resend: true,
  }),
  "200 enhance with empty data (as warnings only: free)": after({
    op: "enhance",
    request: enhanceComps,
    result: answer(200, { success: true, data: {}, warnings: [COMPS_FAILED] }),
    state: "free",
    held: 0,
    resend: true,
  }),
  "200 enhance with its analysis": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(200, analysis()),
    state: "billed",
    held: 20,
    resend: true,
  }),
  "200 enhance with one function failed": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(200, analysis([EXPENSES_FAILED])),
    state: "billed",
    held: 10,
    resend: true,
  }),
  "200 enhance with warnings only (every function failed)": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(200, { warnings: [COMPS_FAILED, EXPENSES_FAILED] }),
    state: "free",
    held: 0,
    resend: true,
  }),
  "200 enhance with no data and no warnings (free by the spec)": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(200, {}),
    state: "free",
    held: 0,
    resend: true,
  }),
  "200 enhance with data but every function warned": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(200, analysis([COMPS_FAILED, EXPENSES_FAILED])),
    state: "free",
    held: 0,
    resend: true,
  }),

  // Refusals: nothing was processed, nothing billed.
  "101 (not an answer)": after({
    op: "buy",
    request: buy,
    result: answer(101, analysis()),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service answered 101\. Check STR_API_BASE_URL\. Not billed\.$/,
  }),
  "300 redirect": after({
    op: "buy",
    request: buy,
    result: answer(300, analysis()),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service answered 300\. Check STR_API_BASE_URL\. Not billed\.$/,
  }),
  "400 with a JSON error message": after({
    op: "buy",
    request: buy,
    result: answer(400, { error: { message: `bedrooms must be at least 0 (${KEY})` } }),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_REJECTED",
    message: /^The service refused the request \(400\): bedrooms must be at least 0 \(\[REDACTED\]\)\. Not billed\.$/,
  }),
  "422 with a text body": after({
    op: "buy",
    request: buy,
    result: answer(422, "  Unprocessable: latitude out of range\n"),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_REJECTED",
    message: /^The service refused the request \(422\): Unprocessable: latitude out of range\. Not billed\.$/,
  }),
  "413 with an empty body": after({
    op: "buy",
    request: buy,
    result: answer(413, ""),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_REJECTED",
    message: /^The service refused the request \(413\)\. Not billed\.$/,
  }),
  "401": after({
    op: "buy",
    request: buy,
    result: answer(401, "no"),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_AUTH",
    message: /^The service refused the relay's API key \(401\)\. Check STR_API_KEY\.$/,
  }),
  "403": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(403, {}),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_AUTH",
    message: /\(403\)/,
  }),
  "404 to an enhance (no such analysis)": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(404, { message: "not found" }),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_ANALYSIS_NOT_FOUND",
    message: /^The service has no analysis an_42 for this key: not found\.$/,
  }),
  "404 to a create (a wrong base URL)": after({
    op: "buy",
    request: buy,
    result: answer(404, "Not Found"),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service answered 404: Not Found\. Check STR_API_BASE_URL\. Not billed\.$/,
  }),
  "409": after({
    op: "buy",
    request: buy,
    result: answer(409, { error: "conflict" }),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service answered 409: conflict\. Check/,
  }),
  "429 to an enhance (throttled, not a missing analysis)": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(429, "slow down"),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_THROTTLED",
    message: /^The service kept throttling/,
  }),
  "429 past the relay's time limit": after({
    op: "buy",
    request: buy,
    result: answer(429, "slow down"),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_THROTTLED",
    message: /^The service kept throttling the relay past its time limit\. Not billed; retry later\.$/,
  }),
  "499": after({
    op: "buy",
    request: buy,
    result: answer(499, ""),
    state: "free",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service answered 499\. Check/,
  }),

  // 5xx from the service itself: it failed, and failed requests are not billed.
  "500 with a JSON error": after({
    op: "buy",
    request: buy,
    result: answer(500, { error: "internal" }),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service failed \(500\): internal\. Failed requests are not billed\.$/,
  }),
  "503 after the retries": after({
    op: "buy",
    request: buy,
    result: answer(503, ""),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
    message: /^The service failed \(503\)\. Failed requests/,
  }),
  "519": after({
    op: "buy",
    request: buy,
    result: answer(519, ""),
    state: "failed",
    held: 0,
    resend: true,
    code: "STR_UPSTREAM_FAILED",
  }),

  // Gateway answers: the service behind the gateway may have done (and billed) the work.
  "502 to a create (text body)": after({
    op: "buy",
    request: buy,
    result: answer(502, "Bad Gateway"),
    state: "unknown",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
    message:
      /^The service's gateway answered 502: Bad Gateway; the request may have been processed\. Refresh explicitly to send it again\.$/,
  }),
  "502 to an enhance (JSON body)": after({
    op: "enhance",
    request: enhanceComps,
    result: answer(502, { error: { message: "upstream closed" } }),
    state: "unknown",
    held: 10,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
    message: /gateway answered 502: upstream closed;/,
  }),
  "504 with an empty body": after({
    op: "buy",
    request: buy,
    result: answer(504, ""),
    state: "unknown",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_TIMEOUT",
    message: /^The service's gateway answered 504; the request may have been processed\./,
  }),
  "520": after({
    op: "cohost",
    request: plainCohost,
    result: answer(520, ""),
    state: "unknown",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
  }),
  "522": after({
    op: "buy",
    request: buy,
    result: answer(522, "Connection timed out"),
    state: "unknown",
    held: 40,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
  }),
  "524": after({
    op: "enhance",
    request: enhanceBoth,
    result: answer(524, "A timeout occurred"),
    state: "unknown",
    held: 20,
    resend: false,
    code: "STR_UPSTREAM_FAILED",
  }),
};

describe("the billing outcome of every way a call to the service can end", () => {
  test.each(Object.entries(ROWS).map(([name, row]) => ({ name, ...row })))(
    "$name: $state, holds $held cents, resend $resend",
    (row) => {
      const outcome = outcomeOf(row.op, row.request, row.result, redact);
      expect(outcome.state).toBe(row.state);
      expect(outcome.status).toBe(row.result.kind === "answer" ? row.result.status : undefined);
      expect(outcome.charge.cents).toBe(row.held);
      const errorCode = "error" in outcome ? (outcome.ledgerNote ?? outcome.error.code) : undefined;
      expect(resendAllowed({ state: outcome.state, errorCode })).toBe(row.resend);
      if (row.code) {
        expect("error" in outcome && outcome.error.code).toBe(row.code);
        expect("error" in outcome && outcome.error.billing).toBe(TOLD[row.state]);
        if (row.message) expect("error" in outcome && outcome.error.message).toMatch(row.message);
      } else {
        expect("error" in outcome).toBe(false);
      }
    },
  );

  test("a 2xx answer carries its normalised analysis; a warnings-only enhance carries its warnings and no data", () => {
    const created = outcomeOf("buy", buy, answer(200, analysis([COMPS_FAILED])), redact);
    expect("envelope" in created && created.envelope).toMatchObject({
      success: true,
      data: { _id: "an_1" },
      warnings: [COMPS_FAILED],
    });
    const enhanced = outcomeOf(
      "enhance",
      enhanceBoth,
      answer(200, { warnings: [COMPS_FAILED, EXPENSES_FAILED] }),
      redact,
    );
    expect("envelope" in enhanced && enhanced.envelope).toMatchObject({
      success: true,
      warnings: [COMPS_FAILED, EXPENSES_FAILED],
    });
    expect("envelope" in enhanced && enhanced.envelope.data).toBeUndefined();
  });

  test("an enhance answer without an analysis id carries no figures, and a warning says why", () => {
    const o = outcomeOf(
      "enhance",
      enhanceComps,
      answer(200, { success: true, data: { ratePerNightUSD: 210 } }),
      redact,
    );
    expect("envelope" in o && o.envelope.data).toBeUndefined();
    expect("envelope" in o && o.envelope.warnings).toEqual([
      "The service's enhance answer had no analysis id; its figures were not used. Enhance it again to retry.",
    ]);
  });

  test("a charge names reports and AI functions: an unknown create holds one report and every function asked", () => {
    expect(outcomeOf("buy", buy, answer(502, ""), redact).charge).toEqual({ reports: 1, aiFunctions: 2, cents: 40 });
    expect(outcomeOf("enhance", enhanceBoth, failure("UPSTREAM_TIMEOUT", true), redact).charge).toEqual({
      reports: 0,
      aiFunctions: 2,
      cents: 20,
    });
    expect(outcomeOf("buy", buy, answer(200, analysis([COMPS_FAILED])), redact).charge).toEqual({
      reports: 1,
      aiFunctions: 1,
      cents: 30,
    });
  });
});

describe("a resend without a refresh", () => {
  test.each([
    [undefined, true],
    ["pending", true],
    ["billed", true],
    ["free", true],
    ["failed", true],
    ["unknown", false],
  ] as const)("after a call in state %p is allowed: %p", (state, allowed) =>
    expect(resendAllowed(state === undefined ? undefined : { state })).toBe(allowed),
  );

  test("after a billed call whose answer could not be used: not allowed; a billed call with another error: allowed", () => {
    expect(resendAllowed({ state: "billed", errorCode: 'STR_UPSTREAM_UNUSABLE {"success":true}' })).toBe(false);
    expect(resendAllowed({ state: "billed", errorCode: "STR_UPSTREAM_UNUSABLE" })).toBe(false);
    expect(resendAllowed({ state: "failed", errorCode: "STR_UPSTREAM_UNUSABLE" })).toBe(true);
    expect(resendAllowed({ state: "billed", errorCode: "STR_UPSTREAM_UNUSABLEX" })).toBe(true);
  });
});

describe("the service's error text", () => {
  const long = "e".repeat(301);
  test.each([
    ["a text body, trimmed", "  Bad Gateway \n", "Bad Gateway"],
    ["a long text body, cut to 300", `  ${long}`, "e".repeat(300)],
    ["error as text", { error: "bad input" }, "bad input"],
    ["error as long text", { error: long }, "e".repeat(300)],
    ["error as {message}", { error: { message: "latitude out of range" } }, "latitude out of range"],
    ["error as a long {message}", { error: { message: long } }, "e".repeat(300)],
    ["message", { message: "no such analysis" }, "no such analysis"],
    ["a long message", { message: long }, "e".repeat(300)],
    ["message beside a null error", { error: null, message: "m" }, "m"],
    ["message beside an error without text", { error: { message: 5 }, message: "m" }, "m"],
    ["error as {message} before message", { error: { message: "inner" }, message: "outer" }, "inner"],
    ["a number message", { message: 5 }, ""],
    ["an object without text", { code: 7 }, ""],
    ["null", null, ""],
    ["a number", 42, ""],
    ["nothing", undefined, ""],
  ])("%s", (_name, body, expected) => expect(upstreamMessage(body)).toBe(expected));
});
