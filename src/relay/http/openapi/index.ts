import { RELAY_VERSION } from "../../version";
import { paths } from "./paths";
import { Json, components } from "./schemas";

/*
 * The relay's HTTP API as an OpenAPI 3.1 document, generated from the zod contract (the schemas
 * the relay itself validates with), so there is no second copy to drift. Served at GET
 * /openapi.json and written to docs/openapi.json by `npm run openapi`; automation tools (Power
 * Automate custom connectors, n8n, Postman) import it.
 */

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
    tags: [{ name: "analyses" }, { name: "jobs" }, { name: "operations" }, { name: "add-in" }],
    paths: paths(),
    components: components(),
  };
}

/** The OpenAPI path of a fastify route (`:id` → `{id}`, the sandbox wildcard → `{page}`). */
export function openApiPathOf(route: string): string {
  return route.replace(/:(\w+)/g, "{$1}").replace(/^\/sandbox\/\*$/, "/sandbox/{page}");
}
