import { randomBytes } from "node:crypto";
import { FastifyInstance } from "fastify";
import type { Sandbox } from "../sandbox/sandbox-server";
import { SandboxOptionsInput } from "../sandbox/sandbox-options";
import { RouteEntry, TOKEN, accessOf } from "./http/access";
import { LoggerOption, buildApp } from "./http/app";
import { Callers } from "./callers/caller";
import { CallerLimit } from "./callers/caller-limit";
import { RelayConfig } from "./config";
import { EVENTS, RelayEvents } from "./ops/events";
import { Gateway, budgetCentsOf } from "./gateway";
import { installGuards } from "./http/guards";
import { Jobs } from "./batch/jobs/jobs";
import { RelayMetrics } from "./ops/metrics";
import { OwnNames } from "./http/own-names";
import { Pacer } from "./pacing/pacer";
import { makeRedactor, secretFinder } from "./upstream/redact";
import { RetryPolicy } from "./upstream/retry-rule";
import { SERVER_TIMEOUTS, ServerTimeouts } from "./http/server-timeouts";
import { addinRoutes } from "./http/routes/addin";
import { analysesRoutes } from "./http/routes/analyses";
import { analysisRoutes } from "./http/routes/analysis";
import { batchRoutes } from "./http/routes/batch";
import { RouteContext } from "./http/routes/route-context";
import { healthRoutes } from "./http/routes/health";
import { jobsRoutes } from "./http/routes/jobs";
import { sandboxPageRoutes } from "./http/routes/sandbox-pages";
import { usageRoutes } from "./http/routes/usage";
import { openStore } from "./store/open-store";
import { installRequestLog } from "./http/request-log";
import { RelayStore } from "./store/store";
import { tokenChecker } from "./callers/tokens";
import { storeCaller } from "./gateway/store-call";
import { upstreamFor } from "./upstream/upstream";
import { UpstreamTarget, startUpstream } from "./upstream/upstream-target";

/*
 * Builds the relay: its store, pacer, upstream connection (or embedded sandbox), and the HTTP
 * app with every route. It never listens itself (str-relay.ts does; tests use inject or listen on 0).
 */

export interface RelayOptions {
  config: RelayConfig;
  tokens: string[];
  /** false, or pino options. */
  logger?: LoggerOption;
  /** The store to use instead of the one the configuration names (tests). */
  store?: RelayStore;
  pacer?: Pacer;
  /** Options for the embedded sandbox, over SANDBOX_* from the environment (tests set timeScale 0). */
  sandbox?: SandboxOptionsInput;
  /** Where calls go, already started (upstream-target.ts), closed with the relay: str-screen starts its sandbox first. */
  upstream?: UpstreamTarget;
  retryPolicy?: RetryPolicy;
  /** The built add-in to serve (default dist/ beside lib/); false for none (str-screen's own relay: no Excel opens it). */
  addinDir?: string | false;
  /** How often this replica says it is alive; 3 missed beats and its pending calls become unknown. */
  heartbeatMs?: number;
  /** How long a caller may take to send a request, and to keep an idle connection (tests shorten them). */
  serverTimeouts?: Partial<ServerTimeouts>;
}

export interface Relay {
  app: FastifyInstance;
  gateway: Gateway;
  store: RelayStore;
  metrics: RelayMetrics;
  /** The embedded sandbox, when the relay runs without a key and it runs on the relay's thread (embedded-sandbox.ts). */
  sandbox: Sandbox | undefined;
  owner: string;
  /** Who each token is (its id, label and own budget). */
  callers: Callers;
  /** Every route registered, with who may reach it (access.ts). */
  routes: readonly RouteEntry[];
  close(): Promise<void>;
}

export async function createRelay(options: RelayOptions): Promise<Relay> {
  const upstream = options.upstream ?? (await startUpstream(options.config, options.sandbox));
  try {
    return await buildRelay(options, upstream);
  } catch (error) {
    // The relay owns its sandbox, given or started: one that cannot be built leaves none running.
    await upstream.embedded?.close();
    throw error;
  }
}

async function buildRelay(
  options: RelayOptions,
  { embedded, apiKey, apiBaseUrl, apiKeyHeader }: UpstreamTarget,
): Promise<Relay> {
  const { config } = options;
  const owner = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const redact = makeRedactor([apiKey, config.apiKey, ...options.tokens]);
  const heartbeatMs = options.heartbeatMs ?? config.heartbeatMs;
  // SQLite + an in-process pacer, or Redis + Postgres shared by replicas (store/open-store.ts).
  const { store, pacer } = await openStore(config, { store: options.store, pacer: options.pacer, heartbeatMs, owner });
  const upstream = upstreamFor(config, { apiKey, apiBaseUrl, apiKeyHeader }, redact);
  // Bound before the app exists; the metrics read the gateway lazily.
  const gatewayRef: { current?: Gateway } = {};
  const metrics = new RelayMetrics({
    queueDepth: () => pacer.waiting,
    inFlight: () => gatewayRef.current?.inFlight ?? 0,
    budgetRemainingCents: async () => (gatewayRef.current ? gatewayRef.current.budget.remainingCents() : 0),
  });
  const app = buildApp(config, redact, options.logger, { ...SERVER_TIMEOUTS, ...options.serverTimeouts });
  const events = new RelayEvents(app.log, metrics);
  // Caller ids are keyed by a secret the store keeps (the first replica's; the rest read it).
  const callers = new Callers(config.callers, () =>
    storeCaller(redact)(() => store.keptSecret("caller-id", randomBytes(32).toString("hex"))),
  );
  await callers.ready().catch(() => undefined);
  const gateway = new Gateway({
    callers,
    store,
    pacer,
    upstream,
    metrics,
    events,
    sandbox: config.mode === "sandbox",
    owner,
    budgetCents: budgetCentsOf(config),
    cacheTtlMs: config.cacheTtlMs,
    staleAfterMs: config.staleAfterMs,
    callTimeoutMs: config.upstreamTimeoutMs,
    redact,
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
  });
  gatewayRef.current = gateway;

  const routes = installAccess(app, config, options.tokens, callers);
  installRequestLog(app, metrics);
  const jobs = new Jobs({ store: store.jobs, gateway, callers, owner, heartbeatMs, config, log: app.log, events });
  const context = {
    config,
    gateway,
    store,
    metrics,
    events,
    sandbox: embedded,
    callers,
    jobs,
    addinDir: options.addinDir,
  };
  await registerRoutes(app, context);
  const timer = await startHeartbeats(app, { store, gateway, owner, heartbeatMs, jobs });

  let closed = false;
  return {
    app,
    gateway,
    store,
    metrics,
    sandbox: embedded?.inThread,
    owner,
    callers,
    routes,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await app.close();
      // Before the pacer closes: a job's items not sent are dropped, not failed, and resumed at the next start.
      await jobs.close();
      await pacer.close();
      await gateway.drain();
      await upstream.close();
      await embedded?.close();
      await store.close();
    },
  };
}

/** The guards every request passes; returns the list of routes, filled in as they are registered. */
function installAccess(app: FastifyInstance, config: RelayConfig, tokens: string[], callers: Callers): RouteEntry[] {
  const names = new OwnNames({
    publicUrl: config.publicUrl,
    host: config.host,
    tls: config.tls !== undefined,
    allowedOrigins: config.allowedOrigins,
  });
  installGuards(app, {
    names,
    checkToken: tokenChecker(tokens),
    holdsToken: secretFinder(tokens),
    callerLimit: new CallerLimit(config.callerRps),
    callers,
  });
  const routes: RouteEntry[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      // Read when asked: a plugin's own onRoute hook (the add-in's static files) declares a route's
      // access after this, the root's, has seen it.
      routes.push({
        method,
        url: route.url,
        get access() {
          return accessOf(route.config);
        },
      });
    }
  });
  return routes;
}

/** One fastify plugin per area (routes/). */
async function registerRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  // A browser's CORS preflight for any API route (it carries no token; the guards answer it).
  app.options("/v1/*", TOKEN, async (_request, reply) => reply.code(204).send());
  app.options("/metrics", TOKEN, async (_request, reply) => reply.code(204).send());
  await app.register(analysisRoutes, context);
  await app.register(batchRoutes, context);
  await app.register(jobsRoutes, context);
  await app.register(analysesRoutes, context);
  await app.register(usageRoutes, context);
  await app.register(healthRoutes, context);
  await app.register(sandboxPageRoutes, context);
  await app.register(addinRoutes, context);
}

/**
 * Heartbeats keep this replica's pending calls pending; calls of replicas that stopped become
 * unknown. The first beat is awaited, so a relay that starts has said it is alive. Each beat also
 * renews the leases of the jobs this replica runs, and resumes jobs whose runner stopped.
 */
async function startHeartbeats(
  app: FastifyInstance,
  parts: { store: RelayStore; gateway: Gateway; owner: string; heartbeatMs: number; jobs: Jobs },
): Promise<NodeJS.Timeout> {
  const { store, gateway, owner, heartbeatMs, jobs } = parts;
  const beat = async () => {
    try {
      await store.liveness.heartbeat(owner, heartbeatMs);
      await gateway.flushLedger();
      await store.liveness.settleOrphans(owner, heartbeatMs * 3);
      await jobs.tick();
    } catch (error) {
      app.log.warn({ event: EVENTS.heartbeatFailed, err: error }, "heartbeat failed");
    }
  };
  await beat();
  const timer = setInterval(() => void beat(), heartbeatMs);
  timer.unref();
  return timer;
}
