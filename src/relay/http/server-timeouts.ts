/*
 * How long the relay waits for a caller. Node's defaults leave a request that is never finished
 * waited for without end (fastify sets no request timeout), so one caller trickling bytes could hold
 * connections open for as long as it liked: each phase has its limit, in minutes, not unlimited.
 * Tests shorten them (RelayOptions.serverTimeouts).
 */

export interface ServerTimeouts {
  /** From a connection's first byte to the end of the request's headers. */
  headersMs: number;
  /** From a connection's first byte to the end of the request's body (an 8 MiB batch on a slow link). */
  requestMs: number;
  /** How long an idle kept-alive connection stays open between requests. */
  keepAliveMs: number;
  /** How often Node checks open connections against the two limits above. */
  checkEveryMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = {
  headersMs: 60_000,
  requestMs: 300_000,
  keepAliveMs: 72_000,
  checkEveryMs: 30_000,
};

/** The options Node's http and https servers take for them (fastify sets the request and keep-alive ones). */
export function nodeServerOptions(t: ServerTimeouts): { headersTimeout: number; connectionsCheckingInterval: number } {
  return { headersTimeout: Math.min(t.headersMs, t.requestMs), connectionsCheckingInterval: t.checkEveryMs };
}
