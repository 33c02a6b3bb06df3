import { randomBytes } from "node:crypto";
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  API_KEY_HEADER,
  SPEC_API_KEY_HEADER,
  AiFunction,
  AnalysisData,
  CreateRequest,
  EnhanceRequest,
  FieldIssue,
  OPERATION_PATHS,
  Operation,
  Strategy,
  canonicalRequest,
  charge,
  describeIssues,
  requestedAiFunctions,
  toFieldIssues,
  validateRequest,
} from "../contract";
import { AnalysisLog } from "./analysis-log";
import { driftShape } from "./drift";
import { AiOutcome, buildAnalysis, placeOf, reportSeconds, runAiStep } from "./model";
import { SandboxFaults, SandboxFaultsPatch, SandboxOptions, SandboxOptionsInput } from "./sandbox-options";
import { listingPage, photoSvg, reportPage } from "./pages";
import { seeded } from "./random";
import { SandboxState, StoredAnalysis, keyFingerprint } from "./state";

/**
 * The sandbox: the service's five endpoints, simulated faithfully (spec and observed behaviour),
 * with its public report pages, a per-key bill, throttling, and fault knobs. It builds a fastify
 * app and never listens itself (standalone.ts does, or the relay embeds it).
 */
export interface Sandbox {
  app: FastifyInstance;
  state: SandboxState;
  options: SandboxOptions;
  /** Changes fault knobs while running. */
  setFaults(patch: SandboxFaultsPatch): SandboxFaults;
  /** The base of report, listing and photo links. */
  baseUrl(): string;
  /** A stored analysis as the service would give it now; undefined for an unknown id. */
  analysis(id: string): AnalysisData | undefined;
}

const KEY_SHAPE = /^sk_[A-Za-z0-9_-]{8,200}$/;

/** Listens on a loopback port of its own; its URL, http://127.0.0.1:<port>. */
export async function listenOnLoopback(sandbox: Sandbox): Promise<string> {
  await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
  const address = sandbox.app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

/** Requests are checked by the contract's zod schemas: fastify's schema compilers (ajv) are never loaded. */
const zodOnly = () => {
  throw new Error("sandbox routes check requests with the contract's zod schemas, not fastify schemas");
};
const NO_ROUTE_SCHEMAS = { compilersFactory: { buildValidator: zodOnly, buildSerializer: zodOnly } };

export function buildSandbox(input: SandboxOptionsInput = {}): Sandbox {
  const options = SandboxOptions.parse(input);
  const state = new SandboxState();
  const dice = seeded(options.seed);
  const [onlyKey, ...otherKeys] = options.apiKeys;
  if (options.analysesFile && (onlyKey === undefined || otherKeys.length > 0))
    throw new Error(
      "a sandbox with an analysesFile takes exactly one key (apiKeys): the analyses read back become its",
    );
  const log = options.analysesFile ? new AnalysisLog(options.analysesFile) : undefined;
  for (const analysis of log?.load(onlyKey as string) ?? []) state.analyses.set(analysis.id, analysis);
  /** An analysis made or changed: kept in memory, and in the log for the next start. */
  const keep = (analysis: StoredAnalysis) => {
    state.analyses.set(analysis.id, analysis);
    log?.append(analysis);
  };
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024, schemaController: NO_ROUTE_SCHEMAS });

  const baseUrl = () => {
    if (options.publicBaseUrl) return options.publicBaseUrl.replace(/\/$/, "");
    const address = app.server.address();
    return typeof address === "object" && address ? `http://127.0.0.1:${address.port}` : "http://127.0.0.1";
  };

  const acceptsKey = (key: unknown): key is string =>
    typeof key === "string" && (options.apiKeys.length > 0 ? options.apiKeys.includes(key) : KEY_SHAPE.test(key));

  function fail(reply: FastifyReply, status: number, message: string, fields?: FieldIssue[]) {
    state.recordStatus(status);
    if (options.faults.textErrors)
      return reply
        .code(status)
        .type("text/plain; charset=utf-8")
        .send(fields ? `${message}: ${describeIssues(fields)}` : message);
    return reply.code(status).send({ success: false, error: message, ...(fields ? { fields } : {}) });
  }

  const warningText = (outcome: Extract<AiOutcome, { completed: false }>) =>
    `${outcome.fn} ${outcome.reason}. Not billed.`;
  function warningOf(outcome: Extract<AiOutcome, { completed: false }>): string | Record<string, unknown> {
    const message = warningText(outcome);
    return options.faults.warningStyle === "object" ? { function: outcome.fn, code: outcome.code, message } : message;
  }

  const sleep = (liveSeconds: number, asksForAi: boolean) => {
    const ms =
      liveSeconds * 1000 * options.timeScale +
      options.faults.extraLatencyMs +
      (asksForAi ? options.faults.aiExtraLatencyMs : 0);
    return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  };

  /** Destroys the connection without an answer, as a crash or a network fault would. */
  function drop(request: FastifyRequest, reply: FastifyReply): void {
    reply.hijack();
    request.raw.socket.destroy();
  }

  // A request's arrival is stamped as soon as its headers are read, before its body is parsed or it
  // waits behind other work: that is the moment a service's edge counts it against the rate limit.
  const API_PATHS = new Set(Object.values(OPERATION_PATHS));
  app.addHook("onRequest", async (request) => {
    if (API_PATHS.has(request.url.split("?")[0] ?? "")) {
      const at = performance.timeOrigin + performance.now();
      state.arrivals.push(at);
      arrivalOf.set(request, at);
    }
  });
  const arrivalOf = new WeakMap<FastifyRequest, number>();

  async function handle(op: Operation, request: FastifyRequest, reply: FastifyReply) {
    const arrivedAt = arrivalOf.get(request) ?? Date.now();
    // Either name: the live service's, or the spec's placeholder (a relay set to STR_API_KEY_HEADER=x-service-api-key).
    const apiKey = request.headers[API_KEY_HEADER] ?? request.headers[SPEC_API_KEY_HEADER];
    if (!acceptsKey(apiKey))
      return fail(reply, 401, `Missing or invalid API key in the ${API_KEY_HEADER} (or ${SPEC_API_KEY_HEADER}) header`);
    const admitted = state.throttle.admit(apiKey, options.faults.rateLimitPerSecond, arrivedAt);
    if (!admitted.ok) {
      reply.header("retry-after", String(Math.ceil(admitted.retryAfterMs / 1000)));
      return fail(reply, 429, "Too many requests: key valid but throttled");
    }
    const faults = options.faults;
    if (dice() < faults.unavailableRate) return fail(reply, 503, "Service temporarily unavailable");
    if (dice() < faults.dropBeforeProcessRate) {
      state.dropped.beforeProcess++;
      return drop(request, reply);
    }
    const validated = validateRequest(op, request.body);
    if (!validated.ok) return fail(reply, 400, "Validation failed", validated.issues);

    const result =
      op === "enhance"
        ? await enhance(validated.value as EnhanceRequest, apiKey)
        : await create(op, validated.value as CreateRequest, apiKey);
    if (result.status !== 200) return fail(reply, result.status, result.error);

    if (dice() < faults.dropAfterProcessRate) {
      state.dropped.afterProcess++;
      return drop(request, reply);
    }
    state.recordStatus(200);
    const drifted =
      result.body.data && dice() < faults.driftRate
        ? { ...result.body, data: driftShape(result.body.data) }
        : result.body;
    return reply.code(200).send(drifted);
  }

  type Outcome =
    | { status: 200; body: { success?: boolean; data?: AnalysisData; warnings?: unknown[] } }
    | { status: 404; error: string };

  async function create(strategy: Strategy, request: CreateRequest, apiKey: string): Promise<Outcome> {
    const place = placeOf(request);
    const subject = canonicalRequest(strategy, request);
    const outcomes = requestedAiFunctions(request).map((fn) => runAiStep(fn, "create", place, subject, options.faults));
    // AI steps run beside each other after the report's own work.
    await sleep(reportSeconds(subject) + Math.max(0, ...outcomes.map((o) => o.seconds)), outcomes.length > 0);
    const completed = outcomes.filter((o) => o.completed).map((o) => o.fn);
    const id = randomBytes(12).toString("hex");
    const applied = {
      addAIComps: completed.includes("addAIComps"),
      addAIExpenseEstimates: completed.includes("addAIExpenseEstimates"),
    };
    const data = buildAnalysis(strategy, request, place, applied, id, baseUrl());
    const failed = outcomes.filter((o): o is Extract<AiOutcome, { completed: false }> => !o.completed);
    const warnings = failed.map(warningOf);
    const notes = failed.map(warningText);
    keep({
      id,
      apiKey,
      strategy,
      request,
      place,
      subject,
      applied,
      warnings: notes,
      createdAt: Date.now(),
    });
    state.recordCreate(apiKey, subject);
    state.bill({ at: Date.now(), apiKey, op: strategy, ...charge(1, completed.length), analysisId: id, subject });
    return { status: 200, body: { success: true, data, ...(warnings.length ? { warnings } : {}) } };
  }

  async function enhance(request: EnhanceRequest, apiKey: string): Promise<Outcome> {
    const stored = state.analyses.get(request.analysisId);
    // An analysis made with another key does not exist for this one.
    if (!stored || stored.apiKey !== apiKey) return { status: 404, error: `Analysis ${request.analysisId} not found` };
    const subject = `${stored.subject}#${stored.id}`;
    const outcomes = requestedAiFunctions(request).map((fn) =>
      runAiStep(fn, "enhance", stored.place, subject, options.faults),
    );
    await sleep(Math.max(1, ...outcomes.map((o) => o.seconds)), outcomes.length > 0);
    const failed = outcomes.filter((o): o is Extract<AiOutcome, { completed: false }> => !o.completed);
    const warnings = failed.map(warningOf);
    const completed: AiFunction[] = outcomes.filter((o) => o.completed).map((o) => o.fn);
    // Spec: every requested function failing → free, warnings only, the stored analysis unchanged.
    if (completed.length === 0) return { status: 200, body: { warnings } };
    const applied = { ...stored.applied };
    for (const fn of completed) applied[fn] = true;
    const data = buildAnalysis(stored.strategy, stored.request, stored.place, applied, stored.id, baseUrl());
    const updated: StoredAnalysis = { ...stored, applied, warnings: failed.map(warningText) };
    keep(updated);
    state.bill({
      at: Date.now(),
      apiKey,
      op: "enhance",
      ...charge(0, completed.length),
      analysisId: stored.id,
      subject: canonicalRequest("enhance", request),
    });
    return { status: 200, body: { success: true, data, ...(warnings.length ? { warnings } : {}) } };
  }

  for (const [op, path] of Object.entries(OPERATION_PATHS) as [Operation, string][]) {
    app.post(path, (request, reply) => handle(op, request, reply));
  }

  // The hosted public report and the simulated listings: no key, like the live service's report URLs.
  app.get<{ Params: { id: string } }>("/reports/:id", async (request, reply) => {
    const stored = state.analyses.get(request.params.id);
    if (!stored)
      return reply
        .code(404)
        .type("text/html; charset=utf-8")
        .send("<!doctype html><title>Not found</title><p>No such sandbox report.</p>");
    return reply.type("text/html; charset=utf-8").send(reportPage(dataOf(stored), stored.strategy, stored.warnings));
  });
  app.get<{ Params: { id: string } }>("/listings/:id", async (request, reply) =>
    reply.type("text/html; charset=utf-8").send(listingPage(request.params.id.replace(/[^0-9]/g, ""), baseUrl())),
  );
  app.get<{ Params: { id: string; file: string } }>("/photos/:id/:file", async (request, reply) => {
    const n = Number(/^(\d)\.svg$/.exec(request.params.file)?.[1] ?? NaN);
    if (!Number.isInteger(n)) return reply.code(404).send();
    return reply
      .type("image/svg+xml")
      .header("cache-control", "public, max-age=86400")
      .send(photoSvg(request.params.id.replace(/[^0-9]/g, ""), n));
  });

  // Test and benchmark controls. They show key fingerprints, never keys.
  app.get("/__sandbox/stats", async () => ({
    arrivals: state.arrivals.length,
    maxPerSecond: state.maxInWindow(1000),
    statuses: Object.fromEntries(state.statuses),
    billing: state.totals(),
    duplicateCreates: state.duplicateCreates(),
    analyses: state.analyses.size,
    dropped: state.dropped,
  }));
  app.get("/__sandbox/billing", async () => {
    const keys = [...new Set(state.billing.map((e) => e.apiKey))];
    return { total: state.totals(), byKey: Object.fromEntries(keys.map((k) => [keyFingerprint(k), state.totals(k)])) };
  });
  app.patch("/__sandbox/faults", async (request, reply) => {
    const parsed = SandboxFaultsPatch.safeParse(request.body ?? {});
    if (!parsed.success)
      return reply.code(400).send({ success: false, error: "Invalid faults", fields: toFieldIssues(parsed.error) });
    return setFaults(parsed.data);
  });
  app.post("/__sandbox/reset", async () => {
    state.reset();
    return { ok: true };
  });

  app.setNotFoundHandler((request, reply) =>
    fail(reply, 404, `No route ${request.method} ${request.url.split("?")[0]}`),
  );
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    return fail(reply, status, status === 500 ? "Internal error" : error.message);
  });

  function setFaults(patch: SandboxFaultsPatch): SandboxFaults {
    options.faults = SandboxFaults.parse({ ...options.faults, ...patch });
    return options.faults;
  }

  function dataOf(stored: StoredAnalysis): AnalysisData {
    return buildAnalysis(stored.strategy, stored.request, stored.place, stored.applied, stored.id, baseUrl());
  }

  function analysis(id: string): AnalysisData | undefined {
    const stored = state.analyses.get(id);
    return stored && dataOf(stored);
  }

  return { app, state, options, setFaults, baseUrl, analysis };
}
