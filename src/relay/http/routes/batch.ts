import { FastifyPluginAsync } from "fastify";
import { CancelAnswer, CancelRequest, toFieldIssues } from "../../../contract";
import { TOKEN } from "../access";
import { RelayError } from "../../relay-errors";
import { streamBatch } from "../../batch/stream-batch";
import { parseBatch } from "../../batch/batch-request";
import { dryRunBatch } from "../../batch/batch-dry-run";
import { callerGone } from "./analysis";
import { RouteContext } from "./route-context";

/** POST /v1/batch: many items in one request, answered as NDJSON lines (or priced, with dryRun). */
export const batchRoutes: FastifyPluginAsync<RouteContext> = async (app, { gateway, config, events }) => {
  app.post("/v1/batch", TOKEN, async (request, reply) => {
    const { items, dryRun, maxComparables, priority, joinOnly } = parseBatch(request.body);
    if (dryRun) return dryRunBatch(gateway, items, config.mode === "sandbox", request.caller);
    const stream = streamBatch(gateway, items, callerGone(reply), {
      maxComparables,
      deadlineMs: config.maxRequestMs,
      pendingLeaseMs: config.pendingLeaseMs,
      joinOnly,
      caller: request.caller,
      observe: { log: request.log, events },
      priority,
    });
    return reply.type("application/x-ndjson; charset=utf-8").send(stream);
  });

  app.post("/v1/batch/cancel", TOKEN, async (request) => {
    const parsed = CancelRequest.safeParse(request.body);
    if (!parsed.success) {
      const fields = toFieldIssues(parsed.error, ["calls"]);
      throw new RelayError(
        "STR_BAD_REQUEST",
        `Invalid cancel: ${fields.map((f) => `${f.path} ${f.message}`).join("; ")}`,
        {
          fields,
        },
      );
    }
    const answer: CancelAnswer = { success: true, cancelled: gateway.cancel(parsed.data.calls, request.caller?.id) };
    return answer;
  });
};
