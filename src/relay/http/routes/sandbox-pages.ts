import { FastifyPluginAsync } from "fastify";
import { PUBLIC } from "../access";
import { RelayError } from "../../relay-errors";
import { RouteContext } from "./route-context";

// No dot segments: a page name is never a way out of its folder.
const SANDBOX_PAGES = /^\/sandbox\/(reports|listings|photos)\/(?!.*\.\.)[A-Za-z0-9_./-]+$/;

/** The embedded sandbox's public pages (the report and listing links of simulated answers). */
export const sandboxPageRoutes: FastifyPluginAsync<RouteContext> = async (app, { sandbox }) => {
  if (!sandbox) return;
  const embedded = sandbox;
  app.get("/sandbox/*", PUBLIC, async (request, reply) => {
    const url = request.url.split("?")[0] ?? "";
    if (!SANDBOX_PAGES.test(url)) throw new RelayError("STR_NOT_FOUND", "No such sandbox page.");
    const page = await embedded.page(url.slice("/sandbox".length));
    for (const name of ["content-type", "cache-control"]) {
      const value = page.headers[name];
      if (typeof value === "string") reply.header(name, value);
    }
    return reply.code(page.statusCode).send(page.body);
  });
};
