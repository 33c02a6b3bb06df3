import type { Dispatcher } from "undici";
import Pool from "undici/lib/dispatcher/pool";
import { API_KEY_HEADER, OPERATION_PATHS, Operation } from "../contract";

/*
 * The one way the relay talks to the service: a bounded undici Pool with keep-alive, POST only,
 * to the five paths of the spec under the configured base URL. Nothing a caller sends can change
 * the host or the path: the operation picks one of five fixed paths. The Pool is loaded alone:
 * undici's entry also loads fetch, WebSocket, its caches and mocks, a wait on every start of
 * str-screen's own relay.
 *
 * Each call reports whether the request was written whole before anything went wrong, because
 * that decides whether it may be retried without billing twice (see retry-rule.ts).
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
  | "UPSTREAM_CONNECT" // could not connect (refused, DNS, connect timeout): never sent
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

export interface UpstreamOptions {
  baseUrl: string;
  apiKey: string;
  /** How long to wait for an answer once sent (spec: at least 300 s). */
  timeoutMs: number;
  /** Most connections open at once. */
  connections: number;
  userAgent: string;
  /** Applied to every answer's text before it is read: the key must never be kept or passed on. */
  redact: (text: string) => string;
}

/** Answers larger than this are refused: far beyond any analysis, so only a broken answer is cut off. */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

export class Upstream {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #origin: string;
  readonly #options: UpstreamOptions;

  constructor(options: UpstreamOptions) {
    const url = new URL(options.baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, "");
    this.#options = options;
    this.#pool = new Pool(this.#origin, {
      connections: options.connections,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: 10_000 },
      pipelining: 1,
    });
  }

  /**
   * Sends one call. Never throws: every outcome is a result. `onWritten` is called once the request
   * has been written whole to its connection: the pacer counts the send from then.
   */
  call(op: Operation, body: unknown, onWritten?: () => void): Promise<UpstreamResult> {
    const payload = JSON.stringify(body);
    return new Promise<UpstreamResult>((resolve) => {
      const handler = new CallHandler(resolve, onWritten, this.#options.redact);
      this.#pool.dispatch(
        {
          method: "POST",
          path: `${this.#basePath}${OPERATION_PATHS[op]}`,
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "user-agent": this.#options.userAgent,
            [API_KEY_HEADER]: this.#options.apiKey,
          },
          body: payload,
          headersTimeout: this.#options.timeoutMs,
          bodyTimeout: this.#options.timeoutMs,
        },
        handler as unknown as Dispatcher.DispatchHandler,
      );
    });
  }

  /** Stops accepting calls and lets the ones in flight finish. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  /** Aborts everything now. */
  destroy(): Promise<void> {
    return this.#pool.destroy();
  }
}

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
class CallHandler {
  #sent = false;
  #status = 0;
  #headers: Record<string, string> = {};
  #chunks: Buffer[] = [];
  #size = 0;
  #abort: ((err?: Error) => void) | undefined;
  #done = false;
  readonly #resolve: (r: UpstreamResult) => void;
  readonly #onWritten: (() => void) | undefined;
  readonly #redact: (text: string) => string;

  constructor(
    resolve: (r: UpstreamResult) => void,
    onWritten: (() => void) | undefined,
    redact: (text: string) => string,
  ) {
    this.#resolve = resolve;
    this.#onWritten = onWritten;
    this.#redact = redact;
  }

  onConnect(abort: (err?: Error) => void): void {
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
      this.#headers[String(rawHeaders[i]).toLowerCase()] = String(rawHeaders[i + 1]);
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
    // a debug field) must not reach the cache, the store, a log line or a caller.
    const text = this.#redact(Buffer.concat(this.#chunks).toString("utf8"));
    this.#finish({
      kind: "answer",
      status: this.#status,
      headers: this.#headers,
      body: parseBody(text, this.#headers["content-type"]),
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

  #finish(result: UpstreamResult): void {
    if (this.#done) return;
    this.#done = true;
    this.#resolve(result);
  }
}

function parseBody(text: string, contentType: string | undefined): unknown {
  const looksJson = /json/i.test(contentType ?? "") || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
