import { ADDIN_NAME } from "../addin/deployment";
import { paths } from "../http/openapi/paths";
import { Json, components } from "../http/openapi/schemas";
import { RELAY_VERSION } from "../version";
import { toParameter2, toResponse2, toSchema2 } from "./swagger2";

/*
 * The Power Automate custom connector's definition (apiDefinition.swagger.json): the relay's own
 * path table and zod schemas (openapi/), in Swagger 2.0 (swagger2.ts), with what the flow designer
 * reads. Every route is in it unless NOT_FOR_FLOWS says why not, so a route added to the path
 * table reaches the connector without a change here. Microsoft's pages this follows:
 * "Follow coding standards" (PascalCase operationId, a summary and a description on every
 * operation), "Learn best practices for string fields" (a title of at most 30 characters without
 * the word API; a summary of at most 80 characters, no slash, ending in a letter or digit) and
 * "Create a custom connector with an OpenAPI extension" (x-ms-summary, x-ms-visibility).
 */

/** Routes a flow has no use for, each with why: the rest of the path table is the connector. */
export const NOT_FOR_FLOWS: Readonly<Record<string, string>> = {
  "get /metrics": "Prometheus text, for a scraper",
  "get /healthz": "a probe for load balancers, with no token",
  "get /openapi.json": "the description this connector is made from",
  "get /manifest.xml": "the add-in's manifest, for Excel",
  "get /manifest.json": "the add-in's unified manifest, for Excel",
  "get /sandbox/{page}": "pages a browser opens from a simulated answer",
};

/** Operations the designer lists under "more": a batch answers NDJSON, which a flow reads as text. */
const ADVANCED_OPERATIONS = new Set(["batch"]);

/** Names the designer shows for parameters whose header name says little to a flow builder. */
const PARAMETER_SUMMARIES: Readonly<Record<string, string>> = {
  "Cache-Control": "Refresh (billed)",
  "X-Relay-Priority": "Priority",
  id: "ID",
  cursor: "Page",
};

export const CONNECTOR_TITLE = `${ADDIN_NAME} relay`;

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

/** The definition for a relay whose users reach it at `publicUrl` (host, scheme and base path). */
export function connectorDefinition(publicUrl: string): Json {
  const url = new URL(publicUrl);
  const definitions = Object.fromEntries(
    Object.entries(components().schemas as Record<string, Json>).map(([name, schema]) => [
      name,
      withPropertySummaries(toSchema2(schema)),
    ]),
  );
  return {
    swagger: "2.0",
    info: {
      title: CONNECTOR_TITLE,
      version: RELAY_VERSION,
      description:
        "Short-term-rental underwriting through your own relay, which holds the service's key: analyses are validated, cached, paced and billed once.",
    },
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, "") || "/",
    schemes: [url.protocol.replace(":", "")],
    consumes: ["application/json"],
    produces: ["application/json"],
    paths: connectorPaths(),
    definitions,
    securityDefinitions: {
      relayToken: {
        type: "apiKey",
        in: "header",
        name: "Authorization",
        description:
          "Bearer, a space, then a relay token (RELAY_TOKENS, or the one the relay generated): the relay reads `Authorization: Bearer <token>`.",
      },
    },
    security: [{ relayToken: [] }],
  };
}

/** `createBuy` → `CreateBuy`. */
export const pascalCase = (id: string): string => `${id[0]?.toUpperCase() ?? ""}${id.slice(1)}`;

function connectorPaths(): Json {
  const out: Record<string, Json> = {};
  for (const [path, item] of Object.entries(paths() as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation || `${method} ${path}` in NOT_FOR_FLOWS) continue;
      out[path] = { ...out[path], [method]: operation2(operation) };
    }
  }
  return out;
}

function operation2(operation: Json): Json {
  const id = String(operation.operationId);
  const { summary, description } = summaryAndDescription(String(operation.summary ?? ""), operation.description);
  const parameters = ((operation.parameters as Json[] | undefined) ?? []).map(parameter2);
  const body = operation.requestBody as { required?: boolean; content: Record<string, { schema: Json }> } | undefined;
  if (body) {
    const [schema] = Object.values(body.content).map((c) => c.schema);
    parameters.push({
      name: "body",
      in: "body",
      required: body.required ?? false,
      schema: toSchema2(schema ?? {}),
      "x-ms-summary": "Request",
    });
  }
  const produces = new Set<string>();
  const responses = Object.fromEntries(
    Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => {
      const { response: converted, mediaTypes } = toResponse2(response);
      for (const type of mediaTypes) produces.add(type);
      return [status, converted];
    }),
  );
  return {
    operationId: pascalCase(id),
    summary,
    description,
    ...(operation.tags ? { tags: operation.tags } : {}),
    ...(ADVANCED_OPERATIONS.has(id) ? { "x-ms-visibility": "advanced" } : {}),
    ...(body ? { consumes: Object.keys(body.content) } : {}),
    ...(produces.size > 0 ? { produces: [...produces] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    ...(Array.isArray(operation.security) ? { security: operation.security } : {}),
  };
}

/**
 * The designer shows the summary as the action's name, which may not end in punctuation: a
 * trailing "(0.20 USD, …)" moves to the start of the description, which ends with a period.
 */
export function summaryAndDescription(summary: string, description: unknown): { summary: string; description: string } {
  const aside = /^(.*\S)\s*\(([^()]+)\)$/.exec(summary);
  const sentences = [
    aside ? `${pascalCase(aside[2] as string)}.` : "",
    typeof description === "string" ? description : "",
  ];
  const text = sentences.filter((s) => s !== "").join(" ");
  return {
    summary: aside ? (aside[1] as string) : summary,
    description: /[.!?]$/.test(text) || text === "" ? text : `${text}.`,
  };
}

function parameter2(parameter: Json): Json {
  const name = String(parameter.name);
  return {
    ...toParameter2(parameter),
    "x-ms-summary": PARAMETER_SUMMARIES[name] ?? titleCase(name),
    // Headers tune a call (a billed refresh, a priority), and a job's later pages are asked for in a
    // loop of their own: the designer hides them until asked.
    "x-ms-visibility": parameter.in === "header" || parameter.in === "query" ? "advanced" : "important",
  };
}

/** Each property titled for the designer; the required ones shown first. */
function withPropertySummaries(schema: Json): Json {
  if (typeof schema.items === "object" && schema.items !== null)
    return { ...schema, items: withPropertySummaries(schema.items as Json) };
  if (typeof schema.properties !== "object" || schema.properties === null) return schema;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = Object.fromEntries(
    Object.entries(schema.properties as Record<string, Json>).map(([name, property]) => [
      name,
      {
        ...withPropertySummaries(property),
        "x-ms-summary": titleCase(name),
        ...(required.has(name) ? { "x-ms-visibility": "important" } : {}),
      },
    ]),
  );
  return { ...schema, properties };
}

/** `purchasePriceUSD` → `Purchase Price USD`; `addAIComps` → `Add AI Comps`; `X-Relay-Priority` → `Relay Priority`. */
export function titleCase(name: string): string {
  return name
    .replace(/^X-/i, "")
    .replace(/[-_]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(" ")
    .filter((w) => w !== "")
    .map(pascalCase)
    .join(" ");
}
