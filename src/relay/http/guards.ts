import { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Access, accessOf } from "./access";
import { Callers } from "../callers/caller";
import { CallerLimit } from "../callers/caller-limit";
import { RelayError } from "../relay-errors";
import { OwnNames } from "./own-names";
import { headersFor } from "./security-headers";

/*
 * The relay's HTTP hooks, in the order a request meets them. Each decides on the route the router
 * matched (its declared access, see access.ts), never on a re-reading of the URL:
 *
 * 1. the request target: origin-form only (no `http://host/…`, no fragment), and a Host header in HTTP/1.1;
 * 2. no credential anywhere in the URL, on any route;
 * 3. the Host is one of the relay's own names (DNS rebinding), except for the health probe;
 * 4. for `token` routes: the calling page's origin, then the token, then the caller's own rate.
 *
 * Every answer then gets the security headers for what it is (security-headers.ts).
 */

export interface GuardOptions {
  names: OwnNames;
  checkToken: (presented: string) => boolean;
  /** True when the text holds a relay token in any spelling (see redact.ts). */
  holdsToken: (text: string) => boolean;
  callerLimit: CallerLimit;
  /** Who each configured token is (its label, its own budget). */
  callers: Callers;
}

/** Query parameters that carry a credential, whatever their value. */
const CREDENTIAL_PARAMS = /(^|[?&;])(token|access_token|relay_token|api_key|apikey|key|auth)=/i;

const TOKEN_IN_URL =
  "A credential was sent in the URL, where logs and browser history keep it: send it as `Authorization: Bearer <token>` and rotate it.";

export function installGuards(app: FastifyInstance, options: GuardOptions): void {
  app.decorateRequest("caller", undefined);
  app.addHook("onRequest", async (request, reply) => {
    const access: Access = request.is404 ? "public" : accessOf(request.routeOptions.config);
    checkTarget(request.raw.url ?? "");
    if (request.headers.host === undefined && request.raw.httpVersion === "1.1")
      throw new RelayError("STR_BAD_REQUEST", "An HTTP/1.1 request must have a Host header.");
    const query = queryOf(request.raw.url ?? "");
    if (CREDENTIAL_PARAMS.test(query) || hasTokenShape(query) || options.holdsToken(request.raw.url ?? "")) {
      throw new RelayError("STR_TOKEN_IN_URL", TOKEN_IN_URL);
    }
    if (access !== "probe" && !options.names.isOwnHost(request.headers.host)) {
      throw new RelayError(
        "STR_HOST_NOT_ALLOWED",
        "This relay does not answer to that host name: call it by RELAY_PUBLIC_URL's name (or localhost).",
      );
    }
    if (access === "public" && request.method === "GET") reply.header("access-control-allow-origin", "*");
    if (access !== "token") return;
    if (checkOrigin(request, reply, options.names) === "preflight") return reply.code(204).send();
    await checkToken(request, options);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const access: Access = request.is404 ? "public" : accessOf(request.routeOptions.config);
    // An error is data whatever the route: never cached, framed or run.
    reply.headers(
      headersFor(reply.statusCode >= 400 ? "token" : access, String(reply.getHeader("content-type") ?? "")),
    );
    return payload;
  });
}

/**
 * Only origin-form targets reach a route. An absolute-form target (`GET http://x/v1/usage`) or a
 * fragment (which no client sends) is a spelling meant to differ from what the router matches.
 */
function checkTarget(raw: string): void {
  if (!raw.startsWith("/"))
    throw new RelayError("STR_BAD_REQUEST", "The request target must be a path starting with `/` (no absolute URL).");
  if (raw.includes("#"))
    throw new RelayError("STR_BAD_REQUEST", "The request target must not contain a fragment (`#`).");
}

/**
 * A run of printable characters as long as the shortest relay token, in any query key or value as
 * sent (an encoded token is longer, never shorter). No route reads a query: refusing every such
 * value alike, token or not, means the answer cannot be used to test candidate tokens.
 */
const TOKEN_SHAPE = /[\x21-\x7e]{16,}/;

function hasTokenShape(query: string): boolean {
  return query
    .slice(1)
    .split(/[&;=]/)
    .some((part) => TOKEN_SHAPE.test(part));
}

function queryOf(raw: string): string {
  const at = raw.indexOf("?");
  return at < 0 ? "" : raw.slice(at);
}

/**
 * A browser page from elsewhere must not drive the relay, even with a stolen token: its Origin
 * must be one of the relay's own (from configuration) or in RELAY_ALLOWED_ORIGINS.
 */
function checkOrigin(request: FastifyRequest, reply: FastifyReply, names: OwnNames): "preflight" | "ok" {
  const origin = request.headers.origin;
  if (origin === undefined) return "ok";
  if (!names.isAllowedOrigin(origin, request.socket.localPort)) {
    throw new RelayError(
      "STR_ORIGIN_NOT_ALLOWED",
      `Origin ${origin.slice(0, 200)} is not allowed: add it to RELAY_ALLOWED_ORIGINS.`,
    );
  }
  reply.header("access-control-allow-origin", origin);
  reply.header("vary", "Origin");
  reply.header("access-control-expose-headers", "retry-after, location, x-request-id");
  if (request.method !== "OPTIONS") return "ok";
  reply.header("access-control-allow-methods", "GET, POST, DELETE, OPTIONS");
  reply.header("access-control-allow-headers", "authorization, content-type, cache-control, x-relay-priority");
  reply.header("access-control-max-age", "600");
  return "preflight";
}

async function checkToken(request: FastifyRequest, options: GuardOptions): Promise<void> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  const token = match?.[1];
  if (token === undefined || !options.checkToken(token)) {
    throw new RelayError(
      "STR_UNAUTHORIZED",
      token === undefined ? "Send the relay token as `Authorization: Bearer <token>`." : "The relay token is wrong.",
    );
  }
  // The ids' key is in the store: a store away answers 503 naming it, as every route does then.
  await options.callers.ready();
  request.caller = options.callers.of(token);
  const verdict = options.callerLimit.take(request.caller.id);
  if (!verdict.ok) {
    const seconds = String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
    throw new RelayError(
      "STR_CALLER_RATE_LIMITED",
      `Too many requests from this token; retry after ${seconds} s, or send many items in one POST /v1/batch.`,
      {
        headers: { "retry-after": seconds },
      },
    );
  }
}
