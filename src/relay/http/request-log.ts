import { FastifyInstance } from "fastify";
import { EVENTS } from "../ops/events";
import { RelayMetrics } from "../ops/metrics";

/**
 * One `http.request` line and the request metrics for every answer, by the route pattern the router
 * matched (`/v1/analyses/:id`, never the id itself), so a series per URL cannot grow without end.
 * It replaces fastify's own two lines a request, which had no event name.
 */
export function installRequestLog(app: FastifyInstance, metrics: RelayMetrics): void {
  app.addHook("onResponse", async (request, reply) => {
    const route = request.is404 ? "unmatched" : (request.routeOptions.url ?? "unmatched");
    const status = String(reply.statusCode);
    const seconds = reply.elapsedTime / 1000;
    metrics.requests.inc({ route, status });
    metrics.requestDuration.observe({ method: request.method, route, status }, seconds);
    request.log.info(
      {
        event: EVENTS.request,
        method: request.method,
        route,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        ...(request.caller ? { caller: request.caller.id } : {}),
      },
      `${request.method} ${route} ${status}`,
    );
  });
}
