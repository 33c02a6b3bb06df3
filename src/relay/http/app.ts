import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Duplex } from "node:stream";
import Fastify, { FastifyInstance, FastifyReply, FastifyServerOptions, LogController } from "fastify";
import { RelayConfig } from "../config";
import { RelayError, asRelayError } from "../relay-errors";
import { EVENTS, logRefusal } from "../ops/events";
import { REDACTED, REDACTED_HEADERS, Redactor } from "../upstream/redact";
import { API_HEADERS } from "./security-headers";
import { SERVER_TIMEOUTS, ServerTimeouts, nodeServerOptions } from "./server-timeouts";

/*
 * The relay's fastify instance before any route: its limits, its error shape for every failure
 * (the router's, the body parser's, a route's, Node's own parser's), and a logger that never writes
 * a secret. Hooks and routes are added by server.ts.
 */

/** Longest path parameter the router hands a route (fastify's default is 100). */
const MAX_PATH_PARAM_LENGTH = 1024;

/**
 * Requests are read with the contract's zod schemas, never with route schemas, so fastify's schema
 * compilers (ajv, fast-json-stringify) are not loaded; a route given a schema fails to start, saying why.
 */
const zodOnly = () => {
  throw new Error("relay routes read and answer with the contract's zod schemas (src/contract), not fastify schemas");
};
const NO_ROUTE_SCHEMAS = { compilersFactory: { buildValidator: zodOnly, buildSerializer: zodOnly } };

export type LoggerOption = boolean | { level?: string; stream?: NodeJS.WritableStream };

export function buildApp(
  config: RelayConfig,
  redact: Redactor,
  logger: LoggerOption | undefined,
  timeouts: ServerTimeouts = SERVER_TIMEOUTS,
): FastifyInstance {
  // Node answers a request without Host itself, bare (no security headers): the guards refuse it instead.
  const node = { ...nodeServerOptions(timeouts), requireHostHeader: false };
  const app = Fastify({
    // On close, every connection is cut at once rather than waited for: calls already sent to the
    // service still run to their end (the gateway drains them) and their answers are cached.
    forceCloseConnections: true,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: node,
    schemaController: NO_ROUTE_SCHEMAS,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    // Room for every id the contract allows (128 characters, percent-encoded): a longer one gets
    // the route's own 400 naming `id`. Longer path segments still are refused below.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // URLs the router itself refuses answer in the relay's error shape, with its headers: the app's
    // hooks do not run for these.
    frameworkErrors: (error, _request, reply) => sendEarly(reply as unknown as FastifyReply, routerError(error)),
    // Node's HTTP parser refusing a request (headers too large, a malformed line, no Host) or a
    // request past its time (server-timeouts.ts) answers here.
    clientErrorHandler: answerClientError,
    ...(config.tls
      ? { https: { cert: fs.readFileSync(config.tls.cert), key: fs.readFileSync(config.tls.key), ...node } }
      : {}),
    logger: loggerOptions(logger, redact),
    // request-log.ts writes one line a request, with its event name, route pattern and caller.
    logController: new LogController({ disableRequestLogging: true }),
  } as FastifyServerOptions);

  // Set before any route: a route takes the error handler in force when it is loaded.
  app.setNotFoundHandler(async (request) => {
    throw new RelayError(
      "STR_NOT_FOUND",
      `No route ${request.method} ${redact((request.url.split("?")[0] ?? "").slice(0, 200))}.`,
    );
  });
  app.setErrorHandler(async (error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const e = fromFrameworkError(error, config.bodyLimitBytes, redact);
    if (e.code === "STR_INTERNAL")
      request.log.error({ event: EVENTS.internalError, code: e.code, err: error }, "internal error");
    else logRefusal(request.log, e, { caller: request.caller });
    if (e.headers) reply.headers(e.headers);
    return reply.code(e.statusCode).type("application/json; charset=utf-8").send(e.toBody());
  });
  // JSON only: fastify would otherwise hand a text/plain body to the routes as a string.
  app.removeContentTypeParser("text/plain");
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-request-id", request.id);
    // Refused before its body was read (a wrong token, a body too large): the connection ends with
    // the answer, rather than staying open while the caller sends the rest.
    if (reply.statusCode >= 400 && !request.raw.complete) reply.header("connection", "close");
    if (config.tls) reply.header("strict-transport-security", "max-age=31536000");
    return payload;
  });
  return app;
}

const CLIENT_ERRORS: Readonly<Record<string, { status: number; text: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, text: "Request Header Fields Too Large" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: "Request Timeout" },
};

function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // An answer already under way on this connection cannot be followed by another.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (!socket.writable || answering?.headersSent) return void socket.destroy();
  const e = CLIENT_ERRORS[error.code ?? ""] ?? { status: 400, text: "Bad Request" };
  const body = JSON.stringify(new RelayError("STR_BAD_REQUEST", `The request could not be read (${e.text}).`).toBody());
  const headers = Object.entries({
    ...API_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  });
  socket.end(`HTTP/1.1 ${e.status} ${e.text}\r\n${headers.map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n${body}`);
  // The caller may keep sending: the connection is cut once the answer is out.
  setTimeout(() => socket.destroy(), 1000).unref();
}

function routerError(error: Error & { code?: string }): RelayError {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH")
    return new RelayError(
      "STR_BAD_REQUEST",
      `A part of the URL path is longer than ${MAX_PATH_PARAM_LENGTH} characters.`,
    );
  if (error.code === "FST_ERR_BAD_URL")
    return new RelayError("STR_BAD_REQUEST", "The URL path is not valid (malformed percent-encoding).");
  return asRelayError(error);
}

function sendEarly(reply: FastifyReply, e: RelayError): void {
  void reply.code(e.statusCode).headers(API_HEADERS).type("application/json; charset=utf-8").send(e.toBody());
}

function fromFrameworkError(
  error: Error & { code?: string; statusCode?: number },
  bodyLimit: number,
  redact: Redactor,
): RelayError {
  if (error instanceof RelayError) return error;
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new RelayError("STR_BODY_TOO_LARGE", `The body is larger than ${bodyLimit} bytes.`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new RelayError("STR_UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON (Content-Type: application/json).");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new RelayError("STR_BAD_REQUEST", "The body is empty; send a JSON object.");
  }
  if (error.statusCode === 400 || error instanceof SyntaxError)
    return new RelayError("STR_BAD_REQUEST", `The body is not valid JSON: ${redact(error.message).slice(0, 200)}`);
  if (error.statusCode === 413)
    return new RelayError("STR_BODY_TOO_LARGE", `The body is larger than ${bodyLimit} bytes.`);
  if (error.statusCode === 415)
    return new RelayError("STR_UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON (Content-Type: application/json).");
  return asRelayError(error);
}

/** pino options: secrets redacted from headers and URLs (paths too), URLs logged without their query values, error text redacted. */
function loggerOptions(logger: LoggerOption | undefined, redact: Redactor) {
  if (!logger) return false;
  const base = typeof logger === "object" ? logger : {};
  return {
    level: base.level ?? "info",
    ...(base.stream ? { stream: base.stream } : {}),
    // Lines fastify writes itself (the listening address) get an event name too; the relay's own
    // lines name theirs, which wins.
    mixin: () => ({ event: EVENTS.server }),
    redact: {
      paths: REDACTED_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `req.headers.${h.replace(/-/g, "_")}`]),
      censor: REDACTED,
    },
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        method: req.method,
        url: redact(withoutQueryValues(req.url)),
        id: req.id,
      }),
      err: (err: Error & { code?: string }) => ({
        type: err.name,
        code: err.code,
        message: redact(err.message),
        stack: redact(err.stack ?? ""),
      }),
    },
  };
}

/** The URL with its query (and anything after `;` or `#`) replaced: a credential may sit there. */
function withoutQueryValues(url: string): string {
  const at = url.search(/[?;#]/);
  return at < 0 ? url : `${url.slice(0, at)}${url[at]}${REDACTED}`;
}
