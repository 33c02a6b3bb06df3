import { OPERATION_PATHS, Operation, Priority, isCreate } from "../../../contract";
import { jobPaths } from "./job-paths";
import { CALL_ERRORS, GUARD_ERRORS, Json, errorResponses, json, ref } from "./schemas";

/* Every route of the relay as an OpenAPI path item, one function per tag, kept beside the routes it describes. */

function analysisOperation(op: Operation): Json {
  return {
    operationId: isCreate(op) ? `create${op[0]?.toUpperCase()}${op.slice(1)}` : "enhance",
    summary: isCreate(op)
      ? `Create ${/^[aeiou]/.test(op) ? "an" : "a"} ${op} analysis (0.20 USD, plus 0.10 USD per completed AI step)`
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

/** The paths in the order the document lists them: analyses, jobs, operations, then the add-in's. */
export function paths(): Json {
  return { ...analysisPaths(), ...jobPaths(), ...operationPaths(), ...addinPaths() };
}

function analysisPaths(): Json {
  const operations = (Object.entries(OPERATION_PATHS) as [Operation, string][]).map(([op, path]) => [
    path,
    { post: analysisOperation(op) },
  ]);
  return {
    ...Object.fromEntries(operations),
    "/v1/batch": {
      post: {
        operationId: "batch",
        summary: "Run many analyses in one request (NDJSON lines as they complete; with dryRun, a price)",
        description:
          "Each item is one analysis (`strategy` and that route's `params`), through the same validation, cache, budget and pacing as a single request. Items not done by the relay's deadline answer `202` pending lines, to be asked again.",
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
    },
    "/v1/batch/cancel": {
      post: {
        operationId: "cancelBatchCalls",
        summary: "Stop the calls a batch's pending lines named, where not sent yet (free)",
        description:
          "After a batch answered some items as pending, their calls wait for the caller to ask again. A caller that stops instead sends their `call`s here: those not sent yet are not sent. Only the token whose items they were can cancel them.",
        tags: ["analyses"],
        requestBody: { required: true, content: json(ref("CancelRequest")) },
        responses: {
          "200": { description: "How many waiting places were left.", content: json(ref("CancelAnswer")) },
          ...errorResponses([...GUARD_ERRORS, "STR_BAD_REQUEST", "STR_BODY_TOO_LARGE", "STR_UNSUPPORTED_MEDIA_TYPE"]),
        },
      },
    },
    "/v1/analyses/{id}": {
      get: {
        operationId: "getAnalysis",
        summary: "Get an analysis this relay stored (free)",
        description: "The analysis with that `_id` as the relay last stored it, without calling the service.",
        tags: ["analyses"],
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" } },
        ],
        responses: {
          "200": { description: "The stored analysis.", content: json(ref("RelayAnswer")) },
          ...errorResponses([...GUARD_ERRORS, "STR_VALIDATION", "STR_ANALYSIS_NOT_FOUND", "STR_STORE_UNAVAILABLE"]),
        },
      },
    },
  };
}

function operationPaths(): Json {
  return {
    "/v1/usage": {
      get: {
        operationId: "getUsage",
        summary: "Get today's and this month's spend",
        description: "Spend by the relay's ledger, against the daily budget, in total and by caller; free.",
        tags: ["operations"],
        responses: {
          "200": { description: "Spend by the relay's ledger.", content: json(ref("UsageAnswer")) },
          ...errorResponses([...GUARD_ERRORS, "STR_STORE_UNAVAILABLE"]),
        },
      },
    },
    "/metrics": {
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
    },
    "/healthz": {
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
    },
    "/openapi.json": {
      get: {
        operationId: "getOpenApi",
        summary: "This description",
        tags: ["operations"],
        security: [],
        responses: { "200": { description: "OpenAPI 3.1.", content: json({ type: "object" }) } },
      },
    },
  };
}

function addinPaths(): Json {
  return {
    "/manifest.xml": {
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
    },
    "/manifest.json": {
      get: {
        operationId: "getUnifiedManifest",
        summary: "The add-in's unified manifest (Microsoft 365 app manifest), pointing at this relay (no token)",
        tags: ["add-in"],
        security: [],
        responses: {
          "200": { description: "The manifest.", content: json({ type: "object" }) },
          "404": { description: "The add-in is not built here.", content: json(ref("Error")) },
        },
      },
    },
    "/sandbox/{page}": {
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
    },
  };
}
