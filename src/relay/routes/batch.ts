import { FastifyPluginAsync } from "fastify";
import { TOKEN } from "../access";
import { streamBatch } from "../batch";
import { parseBatch } from "../batch-request";
import { dryRunBatch } from "../batch-dry-run";
import { callerGone } from "./analysis";
import { RouteContext } from "./context";

/** POST /v1/batch: many items in one request, answered as NDJSON lines (or priced, with dryRun). */
export const batchRoutes: FastifyPluginAsync<RouteContext> = async (app, { gateway, config, events }) => {
  app.post("/v1/batch", TOKEN, async (request, reply) => {
    const { items, dryRun, maxComparables, priority } = parseBatch(request.body);
    if (dryRun) return dryRunBatch(gateway, items, config.mode === "sandbox", request.caller);
    const stream = streamBatch(gateway, items, callerGone(reply), {
      maxComparables,
      deadlineMs: config.maxRequestMs,
      caller: request.caller,
      observe: { log: request.log, events },
      priority,
    });
    return reply.type("application/x-ndjson; charset=utf-8").send(stream);
  });
};
