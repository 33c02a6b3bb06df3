import { FastifyPluginAsync } from "fastify";
import { TOKEN } from "../access";
import { usageOf } from "../../ops/usage-report";
import { RouteContext } from "./route-context";

/** GET /v1/usage: today's and this month's spend against the daily budget, and by caller. */
export const usageRoutes: FastifyPluginAsync<RouteContext> = async (app, { store, config, gateway, callers }) => {
  app.get("/v1/usage", TOKEN, async (request) =>
    usageOf(store, gateway.budget, config.mode, { caller: request.caller, callers }),
  );
};
