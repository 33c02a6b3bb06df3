import { randomBytes, randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import fs from "node:fs";
import Fastify, { FastifyInstance, FastifyReply } from "fastify";
import { OPERATION_PATHS, Operation, RelayAnswer, idField } from "../contract";
import { Sandbox, buildSandbox } from "../sandbox/server";
import { SandboxOptionsInput, sandboxOptionsFromEnv } from "../sandbox/options";
import { registerAddinFiles } from "./addin-routes";
import { dryRunBatch, parseBatch, streamBatch } from "./batch";
import { CallerLimit } from "./caller-limit";
import { RelayConfig } from "./config";
import { RelayError, asRelayError } from "./errors";
import { Gateway } from "./gateway";
import { installGuards, wantsRefresh } from "./http";
import { RelayMetrics } from "./metrics";
import { Pacer } from "./pacer";
import { REDACTED, REDACTED_HEADERS, makeRedactor } from "./redact";
import { RetryPolicy } from "./retry-rule";
import { openStore } from "./store/open-store";
import { StoreDownError } from "./store/shared-clients";
import { RelayStore } from "./store/store";
import { tokenChecker } from "./tokens";
import { Upstream } from "./upstream";
import { usageOf } from "./usage";
import { RELAY_VERSION } from "./version";

/**
 * Builds the relay: its store, pacer, upstream connection (or embedded sandbox), and the HTTP
 * app with every route. It never listens itself (main.ts does; tests use inject or listen on 0).
 */
export interface RelayOptions {
  config: RelayConfig;
  tokens: string[];
  /** false, or pino options. */
  logger?: boolean | { level?: string; stream?: NodeJS.WritableStream };
  /** The store to use instead of the one the configuration names (tests). */
  store?: RelayStore;
  pacer?: Pacer;
  /** Options for the embedded sandbox, over SANDBOX_* from the environment (tests set timeScale 0). */
  sandbox?: SandboxOptionsInput;
  retryPolicy?: RetryPolicy;
  /** The built add-in to serve (default dist/ beside lib/). */
  addinDir?: string;
  /** How often this replica says it is alive; 3 missed beats and its pending calls become unknown. */
  heartbeatMs?: number;
}

export interface Relay {
  app: FastifyInstance;
  gateway: Gateway;
  store: RelayStore;
  metrics: RelayMetrics;
  /** The embedded sandbox, when the relay runs without a key. */
  sandbox: Sandbox | undefined;
  owner: string;
  close(): Promise<void>;
}

/** Longest path parameter the router hands a route (fastify's default is 100). */
const MAX_PATH_PARAM_LENGTH = 1024;

const SANDBOX_PAGES = /^\/sandbox\/(reports|listings|photos)\/[A-Za-z0-9_./-]+$/;

export async function createRelay(options: RelayOptions): Promise<Relay> {
  const { config } = options;
  const owner = `${process.pid}-${randomBytes(4).toString("hex")}`;

  // Without a key the relay talks to an embedded sandbox over loopback, through the very same
  // upstream code as in live mode; its public pages are served under /sandbox on the relay.
  let sandbox: Sandbox | undefined;
  let apiKey = config.apiKey;
  let apiBaseUrl = config.apiBaseUrl;
  if (config.mode === "sandbox") {
    apiKey = `sk_sandbox_${randomBytes(16).toString("hex")}`;
    const fromEnv = sandboxOptionsFromEnv(process.env);
    sandbox = buildSandbox({ ...fromEnv, ...options.sandbox, apiKeys: [apiKey], publicBaseUrl: `${config.publicUrl}/sandbox` });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    const address = sandbox.app.server.address();
    apiBaseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  }
  if (!apiKey || !apiBaseUrl) throw new Error("STR_API_KEY and STR_API_BASE_URL are required in live mode");

  const redact = makeRedactor([apiKey, config.apiKey, ...options.tokens]);
  const heartbeatMs = options.heartbeatMs ?? config.heartbeatMs;
  // SQLite + an in-process pacer, or Redis + Postgres shared by replicas (store/open-store.ts).
  const { store, pacer } = await openStore(config, { store: options.store, pacer: options.pacer, heartbeatMs, owner });
  const upstream = new Upstream({
    baseUrl: apiBaseUrl,
    apiKey,
    timeoutMs: config.upstreamTimeoutMs,
    // Enough connections for 40 s of sends at the pacing limit; reports take 10–30 s upstream.
    connections: Math.min(4096, Math.max(64, Math.ceil(config.upstreamRps * 40))),
    userAgent: `str-relay/${RELAY_VERSION}`,
  });
  // Bound before the app exists; the metrics read the gateway lazily.
  const gatewayRef: { current?: Gateway } = {};
  const metrics = new RelayMetrics({ queueDepth: () => pacer.waiting, inFlight: () => gatewayRef.current?.inFlight ?? 0 });
  const gateway = new Gateway({
    store,
    pacer,
    upstream,
    metrics,
    sandbox: config.mode === "sandbox",
    owner,
    budgetCents: Math.round(config.budgetUSDPerDay * 100),
    cacheTtlMs: config.cacheTtlMs,
    staleAfterMs: config.staleAfterMs,
    callTimeoutMs: config.upstreamTimeoutMs,
    redact,
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
  });
  gatewayRef.current = gateway;

  const app = Fastify({
    // On close, every connection is cut at once rather than waited for: calls already sent to the
    // service still run to their end (the gateway drains them below) and their answers are cached.
    forceCloseConnections: true,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    // Room for every id the contract allows (128 characters, percent-encoded): a longer one gets
    // the route's own 400 naming `id`. Longer path segments still are refused below.
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // URLs the router itself refuses (bad percent-encoding, an over-long segment) answer in the
    // relay's error shape too, rather than fastify's own.
    frameworkErrors: (error, _request, reply) => {
      const e =
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? new RelayError("STR_BAD_REQUEST", `A part of the URL path is longer than ${MAX_PATH_PARAM_LENGTH} characters.`)
          : error.code === "FST_ERR_BAD_URL"
            ? new RelayError("STR_BAD_REQUEST", "The URL path is not valid (malformed percent-encoding).")
            : asRelayError(error);
      // The app's hooks do not run for these: the headers every error carries are set here.
      void (reply as unknown as FastifyReply)
        .code(e.statusCode)
        .headers({ "x-content-type-options": "nosniff", "cache-control": "no-store" })
        .type("application/json; charset=utf-8")
        .send(e.toBody());
    },
    ...(config.tls ? { https: { cert: fs.readFileSync(config.tls.cert), key: fs.readFileSync(config.tls.key) } } : {}),
    logger: loggerOptions(options.logger, redact),
  });

  // Set before any route: a route takes the error handler in force when it is loaded, and awaiting a
  // plugin's registration (the add-in's files below) loads the routes declared before it. Set after,
  // those routes answered their errors in fastify's own shape, which the client cannot read.
  app.setNotFoundHandler(async (request) => {
    throw new RelayError("STR_NOT_FOUND", `No route ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)}.`);
  });
  app.setErrorHandler(async (error: Error & { code?: string; statusCode?: number }, request, reply) => {
    const e = fromFrameworkError(error, config.bodyLimitBytes, redact);
    if (e.code === "STR_INTERNAL") request.log.error({ err: error }, "internal error");
    if (e.headers) reply.headers(e.headers);
    return reply.code(e.statusCode).type("application/json; charset=utf-8").send(e.toBody());
  });

  // JSON only: fastify would otherwise hand a text/plain body to the routes as a string.
  app.removeContentTypeParser("text/plain");
  installGuards(app, { allowedOrigins: config.allowedOrigins, checkToken: tokenChecker(options.tokens), callerLimit: new CallerLimit(config.callerRps) });
  app.addHook("onSend", async (request, reply, payload) => {
    reply.header("x-request-id", request.id);
    if (config.tls) reply.header("strict-transport-security", "max-age=31536000");
    return payload;
  });
  app.addHook("onResponse", async (request, reply) => {
    metrics.requests.inc({ route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) });
  });

  for (const [op, route] of Object.entries(OPERATION_PATHS) as [Operation, string][]) {
    app.post(route, async (request, reply) => gateway.analyze(op, request.body, { refresh: wantsRefresh(request), signal: callerGone(reply) }));
  }

  app.post("/v1/batch", async (request, reply) => {
    const { items, dryRun, maxComparables } = parseBatch(request.body);
    if (dryRun) return dryRunBatch(gateway, store, items, Math.round(config.budgetUSDPerDay * 100), config.mode === "sandbox");
    const stream = streamBatch(gateway, items, callerGone(reply), { maxComparables });
    return reply.type("application/x-ndjson; charset=utf-8").send(stream);
  });

  const idRule = idField();
  app.get<{ Params: { id: string } }>("/v1/analyses/:id", async (request): Promise<RelayAnswer> => {
    const id = idRule.safeParse(request.params.id);
    if (!id.success) throw new RelayError("STR_VALIDATION", `id must be ${idRule.description}`, { fields: [{ path: "id", message: `must be ${idRule.description}` }] });
    const stored = await store.getAnalysis(id.data);
    if (!stored) throw new RelayError("STR_ANALYSIS_NOT_FOUND", `No analysis ${id.data} is stored in this relay.`);
    return {
      success: true,
      data: stored.data,
      ...(stored.warnings.length > 0 ? { warnings: stored.warnings } : {}),
      relay: { cached: true, costUSD: 0, sandbox: config.mode === "sandbox", fetchedAt: new Date(stored.updatedAt).toISOString(), operation: stored.op },
    };
  });

  app.get("/v1/usage", async () => usageOf(store, Math.round(config.budgetUSDPerDay * 100), config.mode));
  app.get("/healthz", async (request, reply) => {
    try {
      await store.ping();
    } catch (error) {
      // 503 takes the replica out of a load balancer; the body also has the error shape the client
      // reads. Without a token it names only the part that is down; the log has the details.
      request.log.warn({ err: error }, "store unavailable");
      const part = error instanceof StoreDownError ? error.part : store.kind;
      const down = new RelayError("STR_STORE_UNAVAILABLE", `The relay's store is unavailable (${part} does not answer).`);
      return reply.code(503).send({ ok: false, mode: config.mode, version: RELAY_VERSION, ...down.toBody() });
    }
    return { ok: true, mode: config.mode, version: RELAY_VERSION };
  });
  app.get("/metrics", async (_request, reply) => reply.type("text/plain; version=0.0.4; charset=utf-8").send(metrics.render()));

  if (sandbox) {
    const embedded = sandbox;
    app.get("/sandbox/*", async (request, reply) => {
      const url = request.url.split("?")[0] ?? "";
      if (!SANDBOX_PAGES.test(url)) throw new RelayError("STR_NOT_FOUND", "No such sandbox page.");
      const page = await embedded.app.inject({ method: "GET", url: url.slice("/sandbox".length) });
      for (const name of ["content-type", "cache-control"]) {
        const value = page.headers[name];
        if (typeof value === "string") reply.header(name, value);
      }
      return reply.code(page.statusCode).send(page.rawPayload);
    });
  }

  await registerAddinFiles(app, { publicUrl: config.publicUrl, ...(options.addinDir ? { distDir: options.addinDir } : {}) });


  // Heartbeats keep this replica's pending calls pending; calls of replicas that stopped become unknown.
  const beat = async () => {
    const now = Date.now();
    try {
      await store.heartbeat(owner, now);
      await gateway.flushLedger();
      await store.settleOrphans(now, heartbeatMs * 3);
    } catch (error) {
      app.log.warn({ err: error }, "heartbeat failed");
    }
  };
  await beat();
  const timer = setInterval(() => void beat(), heartbeatMs);
  timer.unref();

  let closed = false;
  return {
    app,
    gateway,
    store,
    metrics,
    sandbox,
    owner,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await app.close();
      await pacer.close();
      await gateway.drain();
      await upstream.close();
      if (sandbox) await sandbox.app.close();
      await store.close();
    },
  };
}

/** An abort signal that fires when the caller disconnects before the answer is written. */
function callerGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  // Every item of a batch listens to this one signal.
  setMaxListeners(0, controller.signal);
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new Error("the caller disconnected"));
  });
  return controller.signal;
}

function fromFrameworkError(error: Error & { code?: string; statusCode?: number }, bodyLimit: number, redact: (t: string) => string): RelayError {
  if (error instanceof RelayError) return error;
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new RelayError("STR_BODY_TOO_LARGE", `The body is larger than ${bodyLimit} bytes.`);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new RelayError("STR_UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON (Content-Type: application/json).");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new RelayError("STR_BAD_REQUEST", "The body is empty; send a JSON object.");
  }
  if (error.statusCode === 400 || error instanceof SyntaxError) return new RelayError("STR_BAD_REQUEST", `The body is not valid JSON: ${redact(error.message).slice(0, 200)}`);
  if (error.statusCode === 413) return new RelayError("STR_BODY_TOO_LARGE", `The body is larger than ${bodyLimit} bytes.`);
  if (error.statusCode === 415) return new RelayError("STR_UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON (Content-Type: application/json).");
  return asRelayError(error);
}

/** pino options: secrets redacted from headers, URLs logged without their query values, error text redacted. */
function loggerOptions(logger: RelayOptions["logger"], redact: (t: string) => string) {
  if (!logger) return false;
  const base = typeof logger === "object" ? logger : {};
  return {
    level: base.level ?? "info",
    ...(base.stream ? { stream: base.stream } : {}),
    redact: { paths: REDACTED_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `req.headers.${h.replace(/-/g, "_")}`]), censor: REDACTED },
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        method: req.method,
        url: req.url.includes("?") ? `${req.url.slice(0, req.url.indexOf("?"))}?${REDACTED}` : req.url,
        id: req.id,
      }),
      err: (err: Error & { code?: string }) => ({ type: err.name, code: err.code, message: redact(err.message), stack: redact(err.stack ?? "") }),
    },
  };
}

