import { Json } from "../http/openapi/schemas";

/*
 * OpenAPI 3.1 → Swagger 2.0, for what the relay's path table and schemas use. Power Automate's
 * custom connectors take 2.0 only (Microsoft's "Follow coding standards" page for custom connectors:
 * "currently, only 2.0 is supported"), and 2.0 is a subset of JSON Schema draft 4 with no null
 * type, no `const`, boolean exclusive bounds, no `anyOf`/`oneOf`, one body schema per response and
 * a body given as an `in: body` parameter. Each construct is turned into the nearest thing 2.0 can
 * say; keywords 2.0 has no place for are left out, so the result validates as 2.0 (the test runs
 * swagger-parser on it).
 */

/** The keywords a 2.0 Schema Object may carry (besides `x-` extensions). */
const SCHEMA_KEYS = new Set([
  "$ref",
  "format",
  "title",
  "description",
  "default",
  "multipleOf",
  "maximum",
  "minimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "required",
  "enum",
  "type",
  "readOnly",
  "example",
]);

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A 3.1 `$ref` to a component schema, as a 2.0 `$ref` to a definition. */
export const definitionRef = (ref: string): string => ref.replace(/^#\/components\/schemas\//, "#/definitions/");

/** A JSON Schema 2020-12 schema (as OpenAPI 3.1 writes it) in Swagger 2.0's schema dialect. */
export function toSchema2(schema: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$ref") out.$ref = definitionRef(String(value));
    else if (key.startsWith("x-") || (SCHEMA_KEYS.has(key) && key !== "type")) out[key] = value;
  }
  setType(out, schema.type);
  if ("const" in schema) out.enum = [schema.const];
  if (Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];
  bound(out, schema, "exclusiveMinimum", "minimum", (a, b) => a >= b);
  bound(out, schema, "exclusiveMaximum", "maximum", (a, b) => a <= b);
  if (isJson(schema.items)) out.items = toSchema2(schema.items);
  if (isJson(schema.properties))
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, s]) => [name, toSchema2(s as Json)]),
    );
  if (isJson(schema.additionalProperties)) out.additionalProperties = toSchema2(schema.additionalProperties);
  else if (typeof schema.additionalProperties === "boolean") out.additionalProperties = schema.additionalProperties;
  if (Array.isArray(schema.allOf)) out.allOf = schema.allOf.map((s) => toSchema2(s as Json));
  const alternatives = [
    ...((schema.anyOf as Json[] | undefined) ?? []),
    ...((schema.oneOf as Json[] | undefined) ?? []),
  ];
  if (alternatives.length > 0) mergeAlternatives(out, alternatives);
  return out;
}

/**
 * `type: ["string", "null"]`: 2.0 has no null type, and a flow checks a typed value against its
 * type, so a value that may be null is left untyped (any value) and marked `x-nullable`.
 */
function setType(out: Json, type: unknown): void {
  if (type === undefined) return;
  const types = Array.isArray(type) ? (type as string[]) : [String(type)];
  const present = types.filter((t) => t !== "null");
  if (present.length === types.length && present.length === 1) out.type = present[0];
  else if (present.length < types.length) out["x-nullable"] = true;
  if (present.length > 1) describe(out, `One of: ${present.join(", ")}.`);
}

/** A numeric exclusive bound (2020-12) as 2.0's inclusive bound plus its boolean flag. */
function bound(
  out: Json,
  schema: Json,
  exclusiveKey: "exclusiveMinimum" | "exclusiveMaximum",
  inclusiveKey: "minimum" | "maximum",
  tighter: (exclusive: number, inclusive: number) => boolean,
): void {
  const exclusive = schema[exclusiveKey];
  if (typeof exclusive !== "number") return;
  const inclusive = schema[inclusiveKey];
  if (typeof inclusive === "number" && !tighter(exclusive, inclusive)) return;
  out[inclusiveKey] = exclusive;
  out[exclusiveKey] = true;
}

/**
 * `anyOf`/`oneOf`: a single alternative besides null is that alternative, nullable; several are
 * left untyped, the description naming them (2.0 cannot say "a string or an object").
 */
function mergeAlternatives(out: Json, alternatives: Json[]): void {
  const present = alternatives.filter((a) => a.type !== "null");
  if (present.length < alternatives.length) {
    delete out.type;
    out["x-nullable"] = true;
  }
  if (present.length === 1) {
    const only = toSchema2(present[0] as Json);
    if (present.length < alternatives.length) delete only.type;
    Object.assign(out, { ...only, ...out });
    return;
  }
  const kinds = present.map((a) => (typeof a.type === "string" ? a.type : "value"));
  describe(out, `One of: ${[...new Set(kinds)].join(", ")}.`);
}

function describe(out: Json, text: string): void {
  out.description = typeof out.description === "string" ? `${out.description} ${text}` : text;
}

/** A 3.1 parameter (`schema` inside) as a 2.0 non-body parameter (the schema's keywords inline). */
export function toParameter2(parameter: Json): Json {
  const { schema, ...rest } = parameter as Json & { schema?: Json };
  const inline = schema ? toSchema2(schema) : { type: "string" };
  return { ...rest, ...inline };
}

/** A 3.1 response as a 2.0 response: one schema, one set of headers, and the media types it is in. */
export function toResponse2(response: Json): { response: Json; mediaTypes: string[] } {
  const out: Json = { description: response.description ?? "" };
  const content = isJson(response.content) ? (response.content as Record<string, { schema?: Json }>) : {};
  const mediaTypes = Object.keys(content);
  const schemas = mediaTypes.map((type) => content[type]?.schema).filter(isJson);
  const schema = oneBodySchema(schemas);
  if (schema) out.schema = schema;
  if (isJson(response.headers)) {
    out.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, header]) => {
        const { schema: headerSchema, ...rest } = header as Json & { schema?: Json };
        return [name, { ...rest, ...toSchema2(headerSchema ?? { type: "string" }) }];
      }),
    );
  }
  return { response: out, mediaTypes };
}

/**
 * 2.0 gives a response one schema whatever its media type. Where the media types carry different
 * bodies (a batch: NDJSON lines, or a JSON object for a dry run), the body is declared as text,
 * which is what a flow gets from either.
 */
function oneBodySchema(schemas: Json[]): Json | undefined {
  if (schemas.length === 0) return undefined;
  const distinct = new Set(schemas.map((s) => JSON.stringify(s)));
  if (distinct.size === 1) return toSchema2(schemas[0] as Json);
  return { type: "string" };
}
