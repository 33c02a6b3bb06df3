import { Pool } from "undici";
import { OPERATION_PATHS, Operation } from "../../contract";
import { WRITE_DEADLINE_MS } from "../pacing/pacer";
import type { RelayConfig } from "../config";
import { CallHandler, UpstreamResult } from "./upstream-call";
import type { UpstreamTarget } from "./upstream-target";
import { RELAY_VERSION } from "../version";

/*
 * The one way the relay talks to the service: a bounded undici Pool with keep-alive, POST only,
 * to the five paths of the spec under the configured base URL. Nothing a caller sends can change
 * the host or the path: the operation picks one of five fixed paths. What each call ends in, and how it is read, is
 * upstream-call.ts.
 */

export interface UpstreamOptions {
  baseUrl: string;
  apiKey: string;
  /** The header the key goes in. */
  apiKeyHeader: string;
  /** How long one attempt may take, its whole answer read (spec: at least 300 s). */
  timeoutMs: number;
  /** Most connections open at once. */
  connections: number;
  userAgent: string;
  /** Applied to every answer's text before it is read: the key must never be kept or passed on. */
  redact: (text: string) => string;
  /** How long a request may wait for its connection before it is given up unsent, ms (tests shorten it). */
  writeDeadlineMs?: number;
}

export class Upstream {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #origin: string;
  readonly #options: UpstreamOptions;
  readonly #writeDeadlineMs: number;

  constructor(options: UpstreamOptions) {
    const url = new URL(options.baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, "");
    this.#options = options;
    this.#writeDeadlineMs = options.writeDeadlineMs ?? WRITE_DEADLINE_MS;
    this.#pool = new Pool(this.#origin, {
      connections: options.connections,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: this.#writeDeadlineMs },
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
      const now = performance.now();
      const deadlines = { writeBy: now + this.#writeDeadlineMs, endBy: now + this.#options.timeoutMs };
      const handler = new CallHandler(resolve, onWritten, this.#options.redact, deadlines);
      this.#pool.dispatch(
        {
          method: "POST",
          path: `${this.#basePath}${OPERATION_PATHS[op]}`,
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "user-agent": this.#options.userAgent,
            [this.#options.apiKeyHeader]: this.#options.apiKey,
          },
          body: payload,
          headersTimeout: this.#options.timeoutMs,
          bodyTimeout: this.#options.timeoutMs,
        },
        handler,
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

/** The one way to the service for this relay's settings. */
export function upstreamFor(
  config: RelayConfig,
  target: Pick<UpstreamTarget, "apiKey" | "apiBaseUrl" | "apiKeyHeader">,
  redact: (text: string) => string,
): Upstream {
  return new Upstream({
    baseUrl: target.apiBaseUrl,
    apiKey: target.apiKey,
    apiKeyHeader: target.apiKeyHeader,
    timeoutMs: config.upstreamTimeoutMs,
    // Enough connections for 40 s of sends at the pacing limit; reports take 10–30 s upstream.
    connections: Math.min(4096, Math.max(64, Math.ceil(config.upstreamRps * 40))),
    userAgent: `str-relay/${RELAY_VERSION}`,
    redact,
  });
}
