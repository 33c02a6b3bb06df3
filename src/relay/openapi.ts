import { z } from "zod";
import {
  BatchRequest,
  DryRunAnswer,
  HealthAnswer,
  OPERATION_PATHS,
  Operation,
  Priority,
  REQUEST_SCHEMAS,
  RelayAnswer,
  RelayErrorBody,
  RelayErrorCode,
  UsageAnswer,
  isCreate,
} from "../contract";
import { ERRORS } from "./errors";
import { RELAY_VERSION } from "./version";

/**
 * The relay's HTTP API as an OpenAPI 3.1 document, generated from the zod contract (the schemas
 * the relay itself validates with), so there is no second copy to drift. Served at GET
 * /openapi.json and written to docs/openapi.json by `npm run openapi`; automation tools (Power
 * Automate custom connectors, n8n, Postman) import it.
 */

type Json = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), read as a request would be written. */
function schemaOf(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    // A custom check (an object the relay reads without copying) is an object on the wire.
    override: (ctx) => {
      if ((ctx.zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def?.type === "custom")
        ctx.jsonSchema.type = "object";
    },
  }) as Json;
  delete json.$schema;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ "application/json": { schema } });

/** The error answers a route can give, by status, each in the one error shape. */
function errorResponses(codes: RelayErrorCode[]): Json {
  const byStatus = new Map<number, RelayErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${ERRORS[c].meaning}`).join(" "),
      content: json(ref("Error")),
    };
  }
  return out;
}

/** Errors every route that needs a token can answer before its own rules. */
const GUARD_ERRORS: RelayErrorCode[] = [
  "STR_BAD_REQUEST",
  "STR_UNAUTHORIZED",
  "STR_TOKEN_IN_URL",
  "STR_ORIGIN_NOT_ALLOWED",
  "STR_HOST_NOT_ALLOWED",
  "STR_CALLER_RATE_LIMITED",
];
/** Errors of a call that may reach the service. */
const CALL_ERRORS: RelayErrorCode[] = [
  ...GUARD_ERRORS,
  "STR_VALIDATION",
  "STR_BODY_TOO_LARGE",
  "STR_UNSUPPORTED_MEDIA_TYPE",
  "STR_BUDGET_EXCEEDED",
  "STR_OUTCOME_UNKNOWN",
  "STR_UPSTREAM_REJECTED",
  "STR_UPSTREAM_AUTH",
  "STR_UPSTREAM_THROTTLED",
  "STR_UPSTREAM_FAILED",
  "STR_UPSTREAM_BAD_ANSWER",
  "STR_UPSTREAM_TIMEOUT",
  "STR_STORE_UNAVAILABLE",
  "STR_SHUTTING_DOWN",
];

function analysisOperation(op: Operation): Json {
  return {
    operationId: isCreate(op) ? `create${op[0]?.toUpperCase()}${op.slice(1)}` : "enhance",
    summary: isCreate(op)
      ? `Create a ${op} analysis (0.20 USD, plus 0.10 USD per completed AI step)`
      : "Add AI steps to an analysis (0.10 USD per completed step)",
    description:
      "The service's own request body, validated before anything is sent. An identical request is answered from the relay's cache at no cost; send `Cache-Control: no-cache` for a billed refresh.",
    tags: ["analyses"],
    parameters: [
      {
        name: "Cache-Control",
        in: "header",
        required: false,
        schema: { type: "string", enum: ["no-cache"] },
        description: "`no-cache`: bypass the cache (billed).",
      },
      {
        name: "X-Relay-Priority",
        in: "header",
        required: false,
        schema: { type: "string", enum: [...Priority.options] },
        description:
          "When the account's rate is shared: `formula` (the default) is sent before the same caller's `bulk` requests; callers take turns either way.",
      },
    ],
    requestBody: { required: true, content: json(ref(`${op[0]?.toUpperCase()}${op.slice(1)}Request`)) },
    responses: {
      "200": {
        description: "The analysis, with `relay` saying whether it was cached and what it cost.",
        content: json(ref("RelayAnswer")),
      },
      ...errorResponses(CALL_ERRORS),
    },
  };
}

function paths(): Json {
  const out: Json = {};
  for (const [op, path] of Object.entries(OPERATION_PATHS) as [Operation, string][])
    out[path] = { post: analysisOperation(op) };
  out["/v1/batch"] = {
    post: {
      operationId: "batch",
      summary: "Many analyses in one request, answered as NDJSON lines as they complete (or priced, with dryRun)",
      tags: ["analyses"],
      requestBody: { required: true, content: json(ref("BatchRequest")) },
      responses: {
        "200": {
          description:
            "One JSON line per item (`{index, status, body}`), in completion order; with `dryRun: true`, one JSON object pricing the batch.",
          content: { "application/x-ndjson": { schema: { type: "string" } }, ...json(ref("DryRunAnswer")) },
        },
        ...errorResponses([
          ...GUARD_ERRORS,
          "STR_BODY_TOO_LARGE",
          "STR_BATCH_TOO_LARGE",
          "STR_UNSUPPORTED_MEDIA_TYPE",
          "STR_STORE_UNAVAILABLE",
        ]),
      },
    },
  };
  out["/v1/analyses/{id}"] = {
    get: {
      operationId: "getAnalysis",
      summary: "An analysis this relay stored (free)",
      tags: ["analyses"],
      parameters: [
        { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" } },
      ],
      responses: {
        "200": { description: "The stored analysis.", content: json(ref("RelayAnswer")) },
        ...errorResponses([...GUARD_ERRORS, "STR_VALIDATION", "STR_ANALYSIS_NOT_FOUND", "STR_STORE_UNAVAILABLE"]),
      },
    },
  };
  out["/v1/usage"] = {
    get: {
      operationId: "getUsage",
      summary: "Today's and this month's spend against the daily budget",
      tags: ["operations"],
      responses: {
        "200": { description: "Spend by the relay's ledger.", content: json(ref("UsageAnswer")) },
        ...errorResponses([...GUARD_ERRORS, "STR_STORE_UNAVAILABLE"]),
      },
    },
  };
  out["/metrics"] = {
    get: {
      operationId: "getMetrics",
      summary: "Prometheus metrics",
      tags: ["operations"],
      responses: {
        "200": {
          description: "Prometheus text exposition.",
          content: { "text/plain": { schema: { type: "string" } } },
        },
        ...errorResponses(GUARD_ERRORS),
      },
    },
  };
  out["/healthz"] = {
    get: {
      operationId: "getHealth",
      summary: "Liveness and the store's health, for load balancers (no token)",
      tags: ["operations"],
      security: [],
      responses: {
        "200": { description: "Up.", content: json(ref("HealthAnswer")) },
        "503": { description: "The store does not answer.", content: json(ref("Error")) },
      },
    },
  };
  out["/openapi.json"] = {
    get: {
      operationId: "getOpenApi",
      summary: "This description",
      tags: ["operations"],
      security: [],
      responses: { "200": { description: "OpenAPI 3.1.", content: json({ type: "object" }) } },
    },
  };
  out["/manifest.xml"] = {
    get: {
      operationId: "getManifest",
      summary: "The add-in's manifest, pointing at this relay (no token)",
      tags: ["add-in"],
      security: [],
      responses: {
        "200": { description: "The manifest.", content: { "application/xml": { schema: { type: "string" } } } },
        "404": { description: "The add-in is not built here.", content: json(ref("Error")) },
      },
    },
  };
  out["/sandbox/{page}"] = {
    get: {
      operationId: "getSandboxPage",
      summary: "A simulated report, listing or photo page (sandbox mode only, no token)",
      tags: ["add-in"],
      security: [],
      parameters: [
        {
          name: "page",
          in: "path",
          required: true,
          schema: { type: "string" },
          description: "reports/…, listings/… or photos/…",
        },
      ],
      responses: {
        "200": { description: "The page." },
        "404": { description: "No such page.", content: json(ref("Error")) },
      },
    },
  };
  return out;
}

function components(): Json {
  const schemas: Json = {
    RelayAnswer: schemaOf(RelayAnswer),
    Error: schemaOf(RelayErrorBody),
    BatchRequest: schemaOf(BatchRequest),
    DryRunAnswer: schemaOf(DryRunAnswer),
    UsageAnswer: schemaOf(UsageAnswer),
    HealthAnswer: schemaOf(HealthAnswer),
  };
  for (const op of Object.keys(REQUEST_SCHEMAS) as Operation[])
    schemas[`${op[0]?.toUpperCase()}${op.slice(1)}Request`] = schemaOf(REQUEST_SCHEMAS[op]);
  return {
    schemas,
    securitySchemes: {
      relayToken: {
        type: "http",
        scheme: "bearer",
        description: "A relay token (RELAY_TOKENS, or the one the relay generated).",
      },
    },
  };
}

/** The document, for a relay whose users reach it at `publicUrl`. */
export function openApiDocument(publicUrl: string): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "STR relay",
      version: RELAY_VERSION,
      description:
        "Short-term-rental underwriting through a key-holding relay: analyses are validated, cached, paced and billed once. See docs/http-api.md.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: publicUrl }],
    security: [{ relayToken: [] }],
    tags: [{ name: "analyses" }, { name: "operations" }, { name: "add-in" }],
    paths: paths(),
    components: components(),
  };
}

/** The OpenAPI path of a fastify route (`:id` → `{id}`, the sandbox wildcard → `{page}`). */
export function openApiPathOf(route: string): string {
  return route.replace(/:(\w+)/g, "{$1}").replace(/^\/sandbox\/\*$/, "/sandbox/{page}");
}
