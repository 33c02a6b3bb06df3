import fs from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { openApiDocument, openApiPathOf } from "../../src/relay/http/openapi";
import { TestRelay, startRelay } from "../support/relay";

/**
 * The relay's OpenAPI description: valid by a standard validator, served at /openapi.json, the same
 * as docs/openapi.json, and in step with the routes the relay registers (both ways).
 */
describe("the OpenAPI 3.1 description", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay({ RELAY_PUBLIC_URL: "https://relay.example.com" }, { addinDir: "/nonexistent-dist" });
  });
  afterAll(() => t.close());

  test("is served at GET /openapi.json without a token, naming the public URL, and validates with swagger-parser", async () => {
    const r = await t.relay.app.inject({ method: "GET", url: "/openapi.json" });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "https://relay.example.com" }]);
    const validated = (await SwaggerParser.validate(structuredClone(doc))) as { paths: Record<string, unknown> };
    expect(Object.keys(validated.paths).length).toBeGreaterThanOrEqual(12);
  });

  test("a broken description is caught by the validator (so the check above can fail)", async () => {
    const doc = openApiDocument("https://relay.example.com") as {
      paths: Record<string, Record<string, { responses?: unknown }>>;
    };
    const broken = structuredClone(doc);
    (broken.paths["/v1/usage"] as Record<string, { responses?: unknown }>).get = { responses: "none" };
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
  });

  test("every route the relay registers is described, and every described route exists", () => {
    const doc = openApiDocument("https://relay.example.com") as { paths: Record<string, Record<string, unknown>> };
    // HEAD is GET's automatic twin; OPTIONS answers browsers' CORS preflight: neither is an operation.
    const registered = t.relay.routes
      .filter((r) => r.method !== "HEAD" && r.method !== "OPTIONS")
      .map((r) => `${r.method.toLowerCase()} ${openApiPathOf(r.url)}`);
    const described = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect([...new Set(registered)].sort()).toEqual([...described].sort());
  });

  test("the request schemas are the contract's: a field's range and the strictness come through", () => {
    const doc = openApiDocument("x") as {
      components: {
        schemas: Record<string, { properties: Record<string, { maximum?: number }>; additionalProperties?: unknown }>;
      };
    };
    const buy = doc.components.schemas.BuyRequest;
    expect(buy?.properties.interestRatePercentage?.maximum).toBe(15);
    expect(buy?.additionalProperties).toBe(false);
  });

  test("docs/openapi.json is the generated document (run `npm run openapi` after changing the contract)", () => {
    const file = path.resolve(__dirname, "..", "..", "docs", "openapi.json");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(openApiDocument("http://localhost:8787"));
  });
});
