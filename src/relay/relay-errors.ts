import { Billing, FieldIssue, RelayErrorBody, RelayErrorCode } from "../contract";

/**
 * Every error the relay answers, in one table: code → HTTP status, what it means and what to do.
 * The code is the contract (users and the add-in match on it); codes are never reused.
 * docs/errors.md shows the same table and a test fails if they disagree.
 */
export const ERRORS: Readonly<Record<RelayErrorCode, { status: number; meaning: string; action: string }>> = {
  STR_VALIDATION: {
    status: 400,
    meaning: "The request broke a rule of the service's interface; nothing was sent or billed.",
    action: "Fix the fields named in `fields`.",
  },
  STR_BAD_REQUEST: {
    status: 400,
    meaning: "The body is not valid JSON or not the shape this route takes.",
    action: "Send a JSON object as documented for the route.",
  },
  STR_UNAUTHORIZED: {
    status: 401,
    meaning: "No relay token, or a wrong one.",
    action: "Send `Authorization: Bearer <relay token>`; the relay prints its token at first start.",
  },
  STR_TOKEN_IN_URL: {
    status: 401,
    meaning: "A token was put in the URL, where logs and browser history keep it.",
    action: "Send it in the Authorization header instead, and rotate the token.",
  },
  STR_BUDGET_EXCEEDED: {
    status: 402,
    meaning: "The call could pass today's budget, so it was not sent.",
    action: "Raise RELAY_BUDGET_USD_PER_DAY, or wait for tomorrow.",
  },
  STR_CALLER_BUDGET_EXCEEDED: {
    status: 402,
    meaning: "The call could pass this token's own budget for today, so it was not sent; other tokens go on.",
    action:
      "Ask the relay's operator to raise the token's entry in RELAY_TOKEN_BUDGETS_USD_PER_DAY, or wait for tomorrow.",
  },
  STR_ORIGIN_NOT_ALLOWED: {
    status: 403,
    meaning: "The calling page's origin is not in RELAY_ALLOWED_ORIGINS.",
    action: "Add the add-in's origin to RELAY_ALLOWED_ORIGINS.",
  },
  STR_HOST_NOT_ALLOWED: {
    status: 421,
    meaning:
      "The request's Host is not one of the relay's names (RELAY_PUBLIC_URL's host, its listening address, localhost).",
    action: "Call the relay by its public URL; behind a proxy, set RELAY_PUBLIC_URL to the name users reach it by.",
  },
  STR_NOT_FOUND: { status: 404, meaning: "No such route.", action: "Check the path against the HTTP API reference." },
  STR_ANALYSIS_NOT_FOUND: {
    status: 404,
    meaning: "No analysis with that id (the service does not know it for this key either).",
    action: "Use the `_id` of an analysis made through this relay's key.",
  },
  STR_OUTCOME_UNKNOWN: {
    status: 409,
    meaning:
      "An earlier call for the same request was sent but its outcome is unknown (the relay timed out or died); it may have been billed.",
    action: "Refresh explicitly (Cache-Control: no-cache, or refresh: true) to send it again.",
  },
  STR_NOT_SENT: {
    status: 409,
    meaning:
      "Asked with joinOnly: the item has no answer in the cache and no call in flight, so it was not sent (free).",
    action: "Send it again without joinOnly to buy it.",
  },
  STR_BODY_TOO_LARGE: {
    status: 413,
    meaning: "The body is larger than the relay accepts.",
    action: "Send less per request; split a batch.",
  },
  STR_BATCH_TOO_LARGE: {
    status: 413,
    meaning: "The batch has more items than one batch may carry.",
    action: "Split it into batches of at most 10,000 items.",
  },
  STR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning: "The body is not JSON.",
    action: "Send Content-Type: application/json.",
  },
  STR_CALLER_RATE_LIMITED: {
    status: 429,
    meaning: "This token sent more requests than the relay allows a caller.",
    action: "Slow down (see Retry-After); use POST /v1/batch for many items.",
  },
  STR_UPSTREAM_REJECTED: {
    status: 400,
    meaning: "The service refused the request as invalid (not billed).",
    action: "Read the service's message and fix the input.",
  },
  STR_UPSTREAM_AUTH: {
    status: 502,
    meaning: "The service refused the relay's API key.",
    action: "Check STR_API_KEY on the relay (rotate it in the service's account settings if needed).",
  },
  STR_UPSTREAM_THROTTLED: {
    status: 502,
    meaning: "The service kept throttling past the relay's time limit (not billed).",
    action: "Retry later; lower RELAY_UPSTREAM_RPS if other clients share the key.",
  },
  STR_UPSTREAM_FAILED: {
    status: 502,
    meaning:
      "The service failed or could not be reached; `billing` says whether the relay knows it did not bill, or cannot know.",
    action: "Retry later; when billing is unknown, refresh explicitly to send it again.",
  },
  STR_UPSTREAM_BAD_ANSWER: {
    status: 502,
    meaning:
      "Reserved: earlier versions answered it for a billed answer without an analysis, which is now STR_UPSTREAM_UNUSABLE.",
    action: "Retry later; report it if it persists.",
  },
  STR_UPSTREAM_UNUSABLE: {
    status: 502,
    meaning:
      "The service billed the call but its answer cannot be used (no analysis, an unusable id, cut short); the relay keeps that outcome and answers it again rather than buy it again.",
    action: "Refresh explicitly (Cache-Control: no-cache, or refresh: true) to buy it again; report it if it persists.",
  },
  STR_UPSTREAM_TIMEOUT: {
    status: 504,
    meaning:
      "The service did not answer in time after the request was sent; it may still have created (and billed) the report.",
    action: "Check /v1/usage (unknownUSD); refresh explicitly to send it again.",
  },
  STR_STORE_UNAVAILABLE: {
    status: 503,
    meaning: "The relay's store (SQLite, Redis or Postgres) is unavailable; nothing was sent.",
    action: "Bring the store back; the relay recovers by itself.",
  },
  STR_SHUTTING_DOWN: {
    status: 503,
    meaning: "The relay is stopping; nothing was sent.",
    action: "Retry against another replica or after restart.",
  },
  STR_INTERNAL: { status: 500, meaning: "A bug in the relay.", action: "Report it with the request id." },
};

/** An error the relay answers with. Only the error handler turns it into the wire shape. */
export class RelayError extends Error {
  override readonly name = "RelayError";
  readonly code: RelayErrorCode;
  readonly statusCode: number;
  readonly fields: FieldIssue[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** What the failed call cost, when it was a call to the service. */
  readonly billing: Billing | undefined;

  constructor(
    code: RelayErrorCode,
    message?: string,
    extra: { fields?: FieldIssue[]; headers?: Record<string, string>; billing?: Billing; cause?: unknown } = {},
  ) {
    super(message ?? ERRORS[code].meaning, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.code = code;
    this.statusCode = ERRORS[code].status;
    this.fields = extra.fields;
    this.headers = extra.headers;
    this.billing = extra.billing;
  }

  toBody(): RelayErrorBody {
    return {
      success: false,
      error: {
        code: this.code,
        message: this.message,
        ...(this.fields ? { fields: this.fields } : {}),
        ...(this.billing ? { billing: this.billing } : {}),
      },
    };
  }
}

export function isRelayError(error: unknown): error is RelayError {
  return error instanceof RelayError;
}

/** Any thrown value as a RelayError: a RelayError stays itself, anything else is a bug (STR_INTERNAL). */
export function asRelayError(error: unknown): RelayError {
  if (error instanceof RelayError) return error;
  return new RelayError("STR_INTERNAL", undefined, { cause: error });
}
