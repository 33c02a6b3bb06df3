import fs from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import {
  BRAND_COLOR,
  NOT_FOR_FLOWS,
  PLACEHOLDER_URL,
  connectorDefinition,
  connectorFiles,
  connectorProperties,
} from "../../src/relay/connector";
import { summaryAndDescription, titleCase } from "../../src/relay/connector/definition";
import { toResponse2, toSchema2 } from "../../src/relay/connector/swagger2";
import { openApiPathOf } from "../../src/relay/http/openapi";
import { paths } from "../../src/relay/http/openapi/paths";
import { TestRelay, startRelay } from "../support/relay";

/**
 * The Power Automate custom connector (docs/connector/): Swagger 2.0 that a 2.0 validator accepts,
 * made from the same path table as the OpenAPI document, with every route a flow needs, and the
 * strings the flow designer shows kept to Microsoft's rules for connectors ("Follow coding
 * standards", learn.microsoft.com/connectors/custom-connectors/coding-standards; "Learn best
 * practices for string fields", …/custom-connectors/connector-string-guidance).
 */

type Operation = {
  operationId: string;
  summary: string;
  description: string;
  responses: Record<string, unknown>;
  parameters?: { name: string; in: string; "x-ms-summary"?: string; "x-ms-visibility"?: string }[];
  security?: unknown[];
};
type Definition = { paths: Record<string, Record<string, Operation>>; [key: string]: unknown };

const DIR = path.resolve(__dirname, "..", "..", "docs", "connector");
const definition = () => connectorDefinition(PLACEHOLDER_URL) as Definition;
const operations = (d: Definition) =>
  Object.entries(d.paths).flatMap(([p, item]) => Object.entries(item).map(([m, op]) => ({ key: `${m} ${p}`, op })));

describe("the custom connector's definition", () => {
  test("is Swagger 2.0 that swagger-parser validates, with the relay token as an API key in the Authorization header", async () => {
    const d = definition();
    expect(d.swagger).toBe("2.0");
    await expect(SwaggerParser.validate(structuredClone(d) as never)).resolves.toBeDefined();
    expect(d.securityDefinitions).toEqual({
      relayToken: expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }),
    });
    expect(d.security).toEqual([{ relayToken: [] }]);
  });

  test("a 3.1 construct left in is caught by the 2.0 validator (so the check above can fail)", async () => {
    const broken = structuredClone(definition()) as unknown as {
      definitions: Record<string, { properties: Record<string, object> }>;
    };
    (broken.definitions.BuyRequest as { properties: Record<string, object> }).properties.purchasePriceUSD = {
      type: "number",
      exclusiveMinimum: 0,
    };
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/exclusiveMinimum|Swagger schema validation/);
  });

  test("host, scheme and base path come from the relay's public URL", () => {
    const d = connectorDefinition("https://relay.corp.example.org:8443/str/") as Definition;
    expect([d.host, d.basePath, d.schemes]).toEqual(["relay.corp.example.org:8443", "/str", ["https"]]);
    expect((definition() as Definition).host).toBe("relay.example.com");
  });

  test("every operation of the path table is in it unless NOT_FOR_FLOWS says why not, and each exclusion names a real route", () => {
    const table = Object.entries(paths() as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m} ${p}`),
    );
    const inConnector = operations(definition()).map((o) => o.key);
    expect(inConnector.sort()).toEqual(table.filter((k) => !(k in NOT_FOR_FLOWS)).sort());
    expect(Object.keys(NOT_FOR_FLOWS).filter((k) => !table.includes(k))).toEqual([]);
    for (const key of ["post /v1/external/analysis/create/buy", "post /v1/batch", "get /v1/usage"])
      expect(inConnector).toContain(key);
  });

  test("each operation: PascalCase unique operationId, a designer-ready summary, a description ending in a period", () => {
    const ops = operations(definition());
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { key, op } of ops) {
      expect([key, op.operationId]).toEqual([key, expect.stringMatching(/^[A-Z][A-Za-z0-9]*$/)]);
      expect(op.summary.length).toBeLessThanOrEqual(80);
      expect([key, op.summary]).toEqual([key, expect.stringMatching(/^[A-Z][^/]*[A-Za-z0-9]$/)]);
      expect([key, op.description]).toEqual([key, expect.stringMatching(/\S.*\.$/)]);
      expect(op.description).not.toBe(op.summary);
    }
    expect(ids).toEqual(expect.arrayContaining(["CreateBuy", "Batch", "GetAnalysis", "GetUsage"]));
  });

  test("routes that need a token declare their 4xx and 5xx answers in the one error shape", () => {
    for (const { key, op } of operations(definition())) {
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      const statuses = Object.keys(op.responses);
      expect([key, statuses]).toEqual([key, expect.arrayContaining(["401"])]);
      expect(op.responses["401"]).toMatchObject({ schema: { $ref: "#/definitions/Error" } });
    }
    const buy = definition().paths["/v1/external/analysis/create/buy"]?.post as Operation;
    expect(Object.keys(buy.responses)).toEqual(expect.arrayContaining(["200", "400", "402", "429", "502", "503"]));
  });

  test("the designer's names: headers are advanced options with a title, the body's required fields come first", () => {
    const buy = definition().paths["/v1/external/analysis/create/buy"]?.post as Operation;
    expect(buy.parameters?.find((p) => p.name === "Cache-Control")).toMatchObject({
      in: "header",
      "x-ms-summary": "Refresh (billed)",
      "x-ms-visibility": "advanced",
    });
    const defs = definition().definitions as Record<string, { properties: Record<string, Record<string, unknown>> }>;
    expect(defs.BuyRequest?.properties.purchasePriceUSD).toMatchObject({
      "x-ms-summary": "Purchase Price USD",
      "x-ms-visibility": "important",
    });
    expect(defs.BuyRequest?.properties.lat).not.toHaveProperty("x-ms-visibility");
    expect((definition().paths["/v1/batch"]?.post as Record<string, unknown>)["x-ms-visibility"]).toBe("advanced");
  });

  test("jobs are in Power Automate's asynchronous pattern: a 202 with Location and Retry-After, polled until the 200", () => {
    const jobs = definition().paths;
    const create = jobs["/v1/jobs"]?.post as Operation;
    const get = jobs["/v1/jobs/{id}"]?.get as Operation;
    expect([create.operationId, get.operationId, jobs["/v1/jobs/{id}"]?.delete?.operationId]).toEqual([
      "CreateJob",
      "GetJob",
      "CancelJob",
    ]);
    for (const op of [create, get]) {
      expect(op.responses["202"]).toMatchObject({
        schema: { $ref: "#/definitions/JobRunningAnswer" },
        headers: { Location: { type: "string" }, "Retry-After": { type: "integer" } },
      });
    }
    expect(get.responses["200"]).toMatchObject({ schema: { $ref: "#/definitions/JobResultsAnswer" } });
    // A later page is asked for in a loop of the flow's own: an advanced option.
    expect(get.parameters?.find((p) => p.name === "cursor")).toMatchObject({
      in: "query",
      "x-ms-visibility": "advanced",
    });
  });

  test("title and description: at most 30 characters, without the word API (Microsoft's string-field rules)", () => {
    const info = definition().info as { title: string; description: string };
    expect(info.title.length).toBeLessThanOrEqual(30);
    expect(`${info.title} ${info.description}`).not.toMatch(/\bAPI\b/i);
  });
});

describe("what Swagger 2.0 cannot say, converted", () => {
  test("a numeric exclusive bound becomes 2.0's inclusive bound with its boolean flag", () => {
    expect(toSchema2({ type: "number", exclusiveMinimum: 0, maximum: 10 })).toEqual({
      type: "number",
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10,
    });
    expect(toSchema2({ type: "number", exclusiveMaximum: 5 })).toEqual({
      type: "number",
      maximum: 5,
      exclusiveMaximum: true,
    });
  });

  test("const becomes a one-value enum; a type array with null becomes an untyped, nullable value", () => {
    expect(toSchema2({ type: "boolean", const: false })).toEqual({ type: "boolean", enum: [false] });
    expect(toSchema2({ type: ["string", "null"] })).toEqual({ "x-nullable": true });
  });

  test("anyOf: one alternative and null is that alternative; several are left untyped, named in the description", () => {
    expect(toSchema2({ anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }] })).toEqual({
      minimum: 1,
      "x-nullable": true,
    });
    expect(toSchema2({ anyOf: [{ type: "string" }, { type: "object" }] })).toEqual({
      description: "One of: string, object.",
    });
  });

  test("component refs point at definitions; 2020-12 keywords 2.0 lacks are left out", () => {
    expect(
      toSchema2({ type: "object", properties: { a: { $ref: "#/components/schemas/X" } }, propertyNames: {} }),
    ).toEqual({ type: "object", properties: { a: { $ref: "#/definitions/X" } } });
  });

  test("a 200 that is NDJSON or JSON is declared as text, with both media types produced", () => {
    const { response, mediaTypes } = toResponse2({
      description: "lines",
      content: {
        "application/x-ndjson": { schema: { type: "string" } },
        "application/json": { schema: { $ref: "#/components/schemas/DryRunAnswer" } },
      },
    });
    expect(response).toEqual({ description: "lines", schema: { type: "string" } });
    expect(mediaTypes).toEqual(["application/x-ndjson", "application/json"]);
    expect((definition().paths["/v1/batch"]?.post as Record<string, unknown>).produces).toEqual(mediaTypes);
  });

  test("a response header (a job's Location and Retry-After) keeps its type inline", () => {
    const { response } = toResponse2({
      description: "Accepted.",
      headers: { Location: { description: "where to poll", schema: { type: "string" } } },
    });
    expect(response.headers).toEqual({ Location: { description: "where to poll", type: "string" } });
  });

  test("a summary's trailing aside moves to the description, which ends with a period", () => {
    expect(summaryAndDescription("Create a buy analysis (0.20 USD)", "Validated first")).toEqual({
      summary: "Create a buy analysis",
      description: "0.20 USD. Validated first.",
    });
    expect(titleCase("addAIComps")).toBe("Add AI Comps");
    expect(titleCase("X-Relay-Priority")).toBe("Relay Priority");
  });
});

describe("the connector package (docs/connector/)", () => {
  test("the committed files are the generator's (run `npm run connector` after changing the contract or routes)", () => {
    for (const [name, content] of Object.entries(connectorFiles())) {
      const committed = fs.readFileSync(path.join(DIR, name));
      expect([name, committed.equals(Buffer.from(content))]).toEqual([name, true]);
    }
  });

  test("apiProperties: the token is a secure connection parameter; the brand colour is the icon's tile", () => {
    const props = connectorProperties() as {
      properties: { connectionParameters: Record<string, { type: string }>; iconBrandColor: string };
    };
    expect(props.properties.connectionParameters.api_key?.type).toBe("securestring");
    const teal = /const TEAL = \[(\d+), (\d+), (\d+)\]/.exec(
      fs.readFileSync(path.resolve(__dirname, "..", "..", "scripts", "make-icons.js"), "utf8"),
    );
    const hex = `#${teal
      ?.slice(1)
      .map((n) => Number(n).toString(16).padStart(2, "0"))
      .join("")}`;
    expect(BRAND_COLOR.toLowerCase()).toBe(hex);
    // Microsoft's connector repository refuses these two (its pull-request checklist).
    expect(["#007ee5", "#ffffff"]).not.toContain(BRAND_COLOR.toLowerCase());
  });

  test("the icon is a PNG", () => {
    const icon = fs.readFileSync(path.join(DIR, "icon.png"));
    expect(icon.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  });
});

describe("the connector against the running relay's routes", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay({}, { addinDir: "/nonexistent-dist" });
  });
  afterAll(() => t.close());

  test("every route the relay registers is in the connector or excluded with a reason", () => {
    const registered = t.relay.routes
      .filter((r) => r.method !== "HEAD" && r.method !== "OPTIONS")
      .map((r) => `${r.method.toLowerCase()} ${openApiPathOf(r.url)}`);
    const covered = new Set([...operations(definition()).map((o) => o.key), ...Object.keys(NOT_FOR_FLOWS)]);
    expect([...new Set(registered)].filter((k) => !covered.has(k))).toEqual([]);
  });
});
