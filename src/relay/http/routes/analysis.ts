import { setMaxListeners } from "node:events";
import { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { OPERATION_PATHS, Operation, PRIORITY_HEADER, Priority } from "../../../contract";
import { TOKEN } from "../access";
import { RelayError } from "../../relay-errors";
import { RouteContext } from "./route-context";

/** The service's five operations, one POST route each, on the service's own paths (http-api.md). */
export const analysisRoutes: FastifyPluginAsync<RouteContext> = async (app, { gateway, events }) => {
  for (const [op, route] of Object.entries(OPERATION_PATHS) as [Operation, string][]) {
    app.post(route, TOKEN, async (request, reply) => {
      // No body at all (and so no content type for the parser to refuse) is not a request to check.
      if (request.body === undefined) throw new RelayError("STR_BAD_REQUEST", "The body is empty; send a JSON object.");
      const context = { caller: request.caller, operation: op };
      try {
        const answer = await gateway.analyze(op, request.body, {
          refresh: wantsRefresh(request),
          signal: callerGone(reply),
          caller: request.caller,
          priority: priorityOf(request),
        });
        events.analysisEnded(request.log, context, answer);
        return answer;
      } catch (error) {
        if (error instanceof RelayError) events.analysisEnded(request.log, context, error);
        throw error;
      }
    });
  }
};

/** The request's priority header (PRIORITY_HEADER), `formula` without one; a bad value is refused, naming the header. */
export function priorityOf(request: FastifyRequest): Priority {
  const value = request.headers[PRIORITY_HEADER];
  if (value === undefined) return "formula";
  const parsed = Priority.safeParse(value);
  if (parsed.success) return parsed.data;
  const message = `must be "formula" or "bulk"; got ${JSON.stringify(value)}`;
  throw new RelayError("STR_BAD_REQUEST", `Invalid header ${PRIORITY_HEADER}: ${message}`, {
    fields: [{ path: `headers.${PRIORITY_HEADER}`, message }],
  });
}

/** True when the request asks to bypass the cache (`Cache-Control: no-cache`): a billed refresh. */
export function wantsRefresh(request: FastifyRequest): boolean {
  const value = request.headers["cache-control"];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return /(^|,)\s*(no-cache|no-store)\s*(,|$)/i.test(text);
}

/** An abort signal that fires when the caller disconnects before the answer is written. */
export function callerGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  // Every item of a batch listens to this one signal.
  setMaxListeners(0, controller.signal);
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new Error("the caller disconnected"));
  });
  return controller.signal;
}
