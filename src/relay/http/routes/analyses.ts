import { FastifyPluginAsync } from "fastify";
import { RelayAnswer, idField } from "../../../contract";
import { TOKEN } from "../access";
import { RelayError } from "../../relay-errors";
import { RouteContext } from "./route-context";

/** GET /v1/analyses/:id: an analysis this relay stored, free (STR.COMPS and STR.WHATIF read it). */
export const analysesRoutes: FastifyPluginAsync<RouteContext> = async (app, { gateway }) => {
  const idRule = idField();
  app.get<{ Params: { id: string } }>("/v1/analyses/:id", TOKEN, async (request): Promise<RelayAnswer> => {
    const id = idRule.safeParse(request.params.id);
    if (!id.success)
      throw new RelayError("STR_VALIDATION", `id must be ${idRule.description}`, {
        fields: [{ path: "id", message: `must be ${idRule.description}` }],
      });
    const answer = await gateway.stored(id.data);
    if (!answer) throw new RelayError("STR_ANALYSIS_NOT_FOUND", `No analysis ${id.data} is stored in this relay.`);
    return answer;
  });
};
