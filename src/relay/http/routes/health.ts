import { FastifyPluginAsync } from "fastify";
import { PROBE, PUBLIC, TOKEN } from "../access";
import { RelayError } from "../../relay-errors";
import { EVENTS } from "../../ops/events";
import { openApiDocument } from "../openapi";
import { StoreDownError } from "../../store/store-down";
import { RELAY_VERSION } from "../../version";
import { RouteContext } from "./route-context";

/**
 * GET /healthz for load balancers and probes (no token), GET /metrics for Prometheus (token), and
 * GET /openapi.json, the API's description for automation tools (public: it holds no data).
 */
export const healthRoutes: FastifyPluginAsync<RouteContext> = async (app, { store, config, metrics }) => {
  app.get("/healthz", PROBE, async (request, reply) => {
    try {
      await store.ping();
    } catch (error) {
      // 503 takes the replica out of a load balancer; the body also has the error shape the client
      // reads. Without a token it names only the part that is down; the log has the details.
      request.log.warn(
        { event: EVENTS.storeUnavailable, code: "STR_STORE_UNAVAILABLE", err: error },
        "store unavailable",
      );
      const part = error instanceof StoreDownError ? error.part : store.kind;
      const down = new RelayError(
        "STR_STORE_UNAVAILABLE",
        `The relay's store is unavailable (${part} does not answer).`,
      );
      return reply.code(503).send({ ok: false, mode: config.mode, version: RELAY_VERSION, ...down.toBody() });
    }
    return { ok: true, mode: config.mode, version: RELAY_VERSION };
  });
  // Built when first asked for: most relays (str-screen's own) never are.
  let description: ReturnType<typeof openApiDocument> | undefined;
  app.get("/openapi.json", PUBLIC, async () => (description ??= openApiDocument(config.publicUrl)));
  app.get("/metrics", TOKEN, async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()));
};
