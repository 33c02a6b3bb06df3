import { z } from "zod";
import {
  BatchRequest,
  CancelAnswer,
  CancelRequest,
  DryRunAnswer,
  HealthAnswer,
  JobResultsAnswer,
  JobRunningAnswer,
  Operation,
  REQUEST_SCHEMAS,
  RelayAnswer,
  RelayErrorBody,
  RelayErrorCode,
  UsageAnswer,
} from "../../../contract";
import { ERRORS } from "../../relay-errors";

/* The schemas and error answers the path table (paths.ts) refers to, from the zod contract. */

export type Json = Record<string, unknown>;

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

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Json) => ({ "application/json": { schema } });

/** The error answers a route can give, by status, each in the one error shape. */
export function errorResponses(codes: RelayErrorCode[]): Json {
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
export const GUARD_ERRORS: RelayErrorCode[] = [
  "STR_BAD_REQUEST",
  "STR_UNAUTHORIZED",
  "STR_TOKEN_IN_URL",
  "STR_ORIGIN_NOT_ALLOWED",
  "STR_HOST_NOT_ALLOWED",
  "STR_CALLER_RATE_LIMITED",
];
/** Errors of a call that may reach the service. */
export const CALL_ERRORS: RelayErrorCode[] = [
  ...GUARD_ERRORS,
  "STR_VALIDATION",
  "STR_BODY_TOO_LARGE",
  "STR_UNSUPPORTED_MEDIA_TYPE",
  "STR_BUDGET_EXCEEDED",
  "STR_CALLER_BUDGET_EXCEEDED",
  "STR_OUTCOME_UNKNOWN",
  "STR_UPSTREAM_REJECTED",
  "STR_UPSTREAM_AUTH",
  "STR_UPSTREAM_THROTTLED",
  "STR_UPSTREAM_FAILED",
  "STR_UPSTREAM_BAD_ANSWER",
  "STR_UPSTREAM_UNUSABLE",
  "STR_UPSTREAM_TIMEOUT",
  "STR_STORE_UNAVAILABLE",
  "STR_SHUTTING_DOWN",
];

/** The components: every schema by name, and the bearer token scheme. */
export function components(): Json {
  const schemas: Json = {
    RelayAnswer: schemaOf(RelayAnswer),
    Error: schemaOf(RelayErrorBody),
    BatchRequest: schemaOf(BatchRequest),
    CancelRequest: schemaOf(CancelRequest),
    CancelAnswer: schemaOf(CancelAnswer),
    DryRunAnswer: schemaOf(DryRunAnswer),
    JobRunningAnswer: schemaOf(JobRunningAnswer),
    JobResultsAnswer: schemaOf(JobResultsAnswer),
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
