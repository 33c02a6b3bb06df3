import { decodeBody, parseBody } from "./answer-body";
import { redactParsed } from "./redact";

/*
 * What one call to the service ends in, and undici's handler that reads it (upstream.ts sends it).
 * Each call reports whether the request was written whole before anything went wrong, because that
 * decides whether it may be retried without billing twice (retry-rule.ts); and a request not
 * written by its write deadline is given up unsent, whenever its connection comes, since the pacer
 * counts its send until then at the latest (pacer.ts). Each attempt also has a deadline for its
 * whole answer, headers and body: undici's own timers are idle timers, which an answer trickled a
 * byte at a time never trips.
 */

/** A finished exchange: the service answered with a status. */
export interface UpstreamAnswer {
  kind: "answer";
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text (error bodies are often plain text). */
  body: unknown;
}

/** Why a call got no answer. `sent` says whether the request had been written whole. */
export type UpstreamFailureCode =
  | "UPSTREAM_CONNECT" // could not connect (refused, DNS, no connection within the write deadline): never sent
  | "UPSTREAM_RESET" // the connection closed before an answer
  | "UPSTREAM_TIMEOUT" // no answer in time
  | "UPSTREAM_ABORTED" // the relay gave up (shutdown)
  | "UPSTREAM_TOO_LARGE"; // the answer was larger than the relay accepts

export class UpstreamFailure extends Error {
  override readonly name = "UpstreamFailure";
  readonly code: UpstreamFailureCode;
  /** True when the request was written whole: the service may have processed (and billed) it. */
  readonly sent: boolean;

  constructor(code: UpstreamFailureCode, sent: boolean, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.sent = sent;
  }
}

export type UpstreamResult = UpstreamAnswer | { kind: "failure"; failure: UpstreamFailure };

/** Answers larger than this are refused: far beyond any analysis, so only a broken answer is cut off. */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * undici's handler callbacks for one call. It uses the classic handler methods because they
 * include `onRequestSent`: the moment the request has been written whole.
 */
export class CallHandler {
  #sent = false;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #size = 0;
  #abort: ((err?: Error) => void) | undefined;
  #done = false;
  /** Gives the request up if no connection has taken it by its write deadline. */
  readonly #writeTimer: NodeJS.Timeout;
  /** Ends the attempt at its deadline, however the answer is coming. */
  readonly #endTimer: NodeJS.Timeout;
  readonly #writeBy: number;
  readonly #resolve: (r: UpstreamResult) => void;
  readonly #onWritten: (() => void) | undefined;
  readonly #redact: (text: string) => string;

  constructor(
    resolve: (r: UpstreamResult) => void,
    onWritten: (() => void) | undefined,
    redact: (text: string) => string,
    deadlines: { writeBy: number; endBy: number },
  ) {
    this.#resolve = resolve;
    this.#onWritten = onWritten;
    this.#redact = redact;
    this.#writeBy = deadlines.writeBy;
    this.#writeTimer = setTimeout(() => this.#finish(notWritten()), deadlines.writeBy - performance.now());
    this.#endTimer = setTimeout(() => this.#endNow(), deadlines.endBy - performance.now());
  }

  /** undici calls this right before writing the request: aborted here, nothing is written. */
  onConnect(abort: (err?: Error) => void): void {
    // Given up already, or late (a stalled process may run this before the timer): never written.
    if (this.#done || performance.now() > this.#writeBy) {
      this.#finish(notWritten());
      return abort(new UpstreamFailure("UPSTREAM_CONNECT", false, "given up before it was written"));
    }
    clearTimeout(this.#writeTimer);
    this.#abort = abort;
  }

  onRequestSent(): void {
    this.#sent = true;
    this.#onWritten?.();
  }

  onResponseStarted(): void {
    this.#sent = true;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[]): boolean {
    if (statusCode < 200) return true; // 1xx: the real answer follows
    this.#sent = true;
    this.#status = statusCode;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      // Headers are logged and read (Retry-After): the same filter as the body.
      this.#headers[this.#redact(String(rawHeaders[i]).toLowerCase())] = this.#redact(String(rawHeaders[i + 1]));
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#size += chunk.length;
    if (this.#size > MAX_ANSWER_BYTES) {
      this.#abort?.(new UpstreamFailure("UPSTREAM_TOO_LARGE", true, `the answer exceeded ${MAX_ANSWER_BYTES} bytes`));
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    // Scanned before anything reads it: an answer that echoes the key (an error quoting the request,
    // a debug field) must not reach the cache, the store, a log line or a caller. Parsed, it is
    // redacted again: a JSON escape inside the key comes back plain only after the parse.
    const decoded = decodeBody(Buffer.concat(this.#chunks), this.#headers["content-encoding"], MAX_ANSWER_BYTES);
    const text = this.#redact(
      decoded.undecodable ? `(a body in ${decoded.undecodable} the relay could not decode)` : decoded.text,
    );
    this.#finish({
      kind: "answer",
      status: this.#status,
      headers: this.#headers,
      body: redactParsed(parseBody(text, this.#headers["content-type"]), this.#redact),
    });
  }

  onError(error: Error & { code?: string }): void {
    if (error instanceof UpstreamFailure) return this.#finish({ kind: "failure", failure: error });
    const code = error.code ?? "";
    let failure: UpstreamFailure;
    if (NOT_SENT_CODES.has(code))
      failure = new UpstreamFailure("UPSTREAM_CONNECT", false, `could not connect to the service (${code})`, error);
    else if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      failure = new UpstreamFailure("UPSTREAM_TIMEOUT", this.#sent, "the service did not answer in time", error);
    } else if (code === "UND_ERR_ABORTED")
      failure = new UpstreamFailure("UPSTREAM_ABORTED", this.#sent, "the relay stopped waiting", error);
    else
      failure = new UpstreamFailure(
        "UPSTREAM_RESET",
        this.#sent,
        `the connection to the service closed${this.#sent ? " after the request was sent" : " before the request was sent"} (${code || error.message})`,
        error,
      );
    this.#finish({ kind: "failure", failure });
  }

  onUpgrade(): void {
    this.onError(new Error("unexpected upgrade"));
  }

  /** The attempt's deadline: unknown if the request was written whole (it may have been processed), else failed. */
  #endNow(): void {
    const failure = new UpstreamFailure(
      "UPSTREAM_TIMEOUT",
      this.#sent,
      "the service did not answer whole within the relay's time limit",
    );
    this.#finish({ kind: "failure", failure });
    this.#abort?.(failure);
  }

  #finish(result: UpstreamResult): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#writeTimer);
    clearTimeout(this.#endTimer);
    this.#resolve(result);
  }
}

function notWritten(): UpstreamResult {
  return {
    kind: "failure",
    failure: new UpstreamFailure(
      "UPSTREAM_CONNECT",
      false,
      "no connection to the service took the request within the write deadline; it was not sent",
    ),
  };
}
