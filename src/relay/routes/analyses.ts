import { FastifyPluginAsync } from "fastify";
import { RelayAnswer, idField } from "../../contract";
import { TOKEN } from "../access";
import { RelayError } from "../errors";
import { RouteContext } from "./context";

/** GET /v1/analyses/:id: an analysis this relay stored, free (STR.COMPS and STR.WHATIF read it). */
export const analysesRoutes: FastifyPluginAsync<RouteContext> = async (app, { store, config }) => {
  const idRule = idField();
  app.get<{ Params: { id: string } }>("/v1/analyses/:id", TOKEN, async (request): Promise<RelayAnswer> => {
    const id = idRule.safeParse(request.params.id);
    if (!id.success) throw new RelayError("STR_VALIDATION", `id must be ${idRule.description}`, { fields: [{ path: "id", message: `must be ${idRule.description}` }] });
    const stored = await store.getAnalysis(id.data);
    if (!stored) throw new RelayError("STR_ANALYSIS_NOT_FOUND", `No analysis ${id.data} is stored in this relay.`);
    return {
      success: true,
      data: stored.data,
      ...(stored.warnings.length > 0 ? { warnings: stored.warnings } : {}),
      relay: { cached: true, costUSD: 0, sandbox: config.mode === "sandbox", fetchedAt: new Date(stored.updatedAt).toISOString(), operation: stored.op },
    };
  });
};
