import { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RelayError } from "./errors";
import { CallerLimit } from "./caller-limit";
import { tokenId } from "./tokens";

/**
 * The relay's HTTP hooks, in the order a request meets them: who may call (origin, then token,
 * then the caller's own rate), and what every answer carries (security headers, CORS).
 */

/** Routes that need a relay token: the API and the metrics. The add-in's files, the sandbox's public pages and /healthz do not. */
export function needsToken(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  return path.startsWith("/v1/") || path === "/metrics";
}

const TOKEN_PARAMS = /(^|[?&])(token|access_token|relay_token|api_key|apikey|key|auth)=/i;

export interface GuardOptions {
  allowedOrigins: readonly string[];
  checkToken: (presented: string) => boolean;
  callerLimit: CallerLimit;
}

export function installGuards(app: FastifyInstance, options: GuardOptions): void {
  const origins = new Set(options.allowedOrigins);

  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && needsToken(request.url)) {
      // A browser page from elsewhere must not drive the relay, even with a stolen token. The
      // relay's own pages (the add-in it serves) are same-origin whatever the public URL says.
      const sameOrigin = origin === `${request.protocol}://${request.headers.host ?? ""}`;
      if (!sameOrigin && !origins.has(origin)) throw new RelayError("STR_ORIGIN_NOT_ALLOWED", `Origin ${origin.slice(0, 200)} is not allowed: add it to RELAY_ALLOWED_ORIGINS.`);
      reply.header("access-control-allow-origin", origin);
      reply.header("vary", "Origin");
      reply.header("access-control-expose-headers", "retry-after, x-request-id");
      if (request.method === "OPTIONS") {
        reply.header("access-control-allow-methods", "GET, POST, OPTIONS");
        reply.header("access-control-allow-headers", "authorization, content-type, cache-control");
        reply.header("access-control-max-age", "600");
        return reply.code(204).send();
      }
    }
    if (!needsToken(request.url)) return;
    const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
    if (TOKEN_PARAMS.test(query) || [...new URLSearchParams(query).values()].some((v) => options.checkToken(v))) {
      throw new RelayError("STR_TOKEN_IN_URL", "A credential was sent in the URL, where logs and browser history keep it: send it as `Authorization: Bearer <token>` and rotate it.");
    }
    const header = request.headers.authorization ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !options.checkToken(match[1] as string)) {
      throw new RelayError("STR_UNAUTHORIZED", match ? "The relay token is wrong." : "Send the relay token as `Authorization: Bearer <token>`.");
    }
    const verdict = options.callerLimit.take(tokenId(match[1] as string));
    if (!verdict.ok) {
      const seconds = String(Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)));
      throw new RelayError("STR_CALLER_RATE_LIMITED", `Too many requests from this token; retry after ${seconds} s, or send many items in one POST /v1/batch.`, {
        headers: { "retry-after": seconds },
      });
    }
  });

  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
    if (needsToken(request.url) || request.url === "/healthz") {
      reply.header("cache-control", "no-store");
      reply.header("content-security-policy", "default-src 'none'; frame-ancestors 'none'");
    }
    return payload;
  });
}

/** True when the request asks to bypass the cache (`Cache-Control: no-cache`): a billed refresh. */
export function wantsRefresh(request: FastifyRequest): boolean {
  const value = request.headers["cache-control"];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return /(^|,)\s*(no-cache|no-store)\s*(,|$)/i.test(text);
}
