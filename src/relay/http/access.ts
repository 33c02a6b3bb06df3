/**
 * Who may reach a route, declared on the route itself (`config: { access }`) and enforced by the
 * hooks in guards.ts on the route the router matched, never on a re-reading of the URL: however a
 * path is spelt (percent-encoded, with a fragment, in absolute form), the check runs for the route
 * it reaches.
 *
 * - `token`: the API and the metrics. A relay token, an allowed origin, the caller's rate.
 * - `public`: the add-in's files and the sandbox's pages: anyone, from the relay's own names.
 * - `probe`: /healthz, for load balancers and container probes, which call a replica by its
 *   internal address: anyone, from any Host (it says only ok, mode and version).
 *
 * A route that declares nothing is treated as `token`: forgetting to declare fails closed.
 */
export type Access = "token" | "public" | "probe";

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
  }
}

export const TOKEN: { config: { access: Access } } = { config: { access: "token" } };
export const PUBLIC: { config: { access: Access } } = { config: { access: "public" } };
export const PROBE: { config: { access: Access } } = { config: { access: "probe" } };

/** The access a route declared; undeclared routes need a token. */
export function accessOf(config: { access?: Access } | undefined): Access {
  return config?.access ?? "token";
}

/** One registered route and who may reach it (for the tests that send every route every way). */
export interface RouteEntry {
  method: string;
  url: string;
  access: Access;
}
