import { FastifyPluginAsync, FastifyReply } from "fastify";
import { JobId } from "../../../contract";
import { TOKEN } from "../access";
import { RelayError } from "../../relay-errors";
import { JobReply, jobReply } from "../../batch/jobs/job-answer";
import { JobState } from "../../batch/jobs/job-store";
import { RouteContext } from "./route-context";

/**
 * POST /v1/jobs, GET and DELETE /v1/jobs/:id: a batch run in the background and polled (jobs/).
 * A job is its caller's alone: another token is told there is no such job, as if it did not exist.
 */
export const jobsRoutes: FastifyPluginAsync<RouteContext> = async (app, { jobs, store, config }) => {
  if (!jobs) return;
  const options = { publicUrl: config.publicUrl, upstreamRps: config.upstreamRps };
  const send = (reply: FastifyReply, answer: JobReply) =>
    reply.code(answer.status).headers(answer.headers).send(answer.body);
  const found = (job: JobState | undefined, id: string): JobState => {
    if (!job) throw new RelayError("STR_NOT_FOUND", `No job ${id} for this token: it may have expired.`);
    return job;
  };
  const idOf = (value: string): string => {
    const id = JobId.safeParse(value);
    if (id.success) return id.data;
    const message = id.error.issues[0]?.message ?? "must be a job's id";
    throw new RelayError("STR_VALIDATION", `Invalid id: ${message}`, { fields: [{ path: "id", message }] });
  };

  app.post("/v1/jobs", TOKEN, async (request, reply) => {
    const started = await jobs.create(request.body, request.caller ?? { id: "" });
    if ("dryRun" in started) return started.dryRun;
    return send(reply, await jobReply(store.jobs, started.job, undefined, options));
  });

  app.get<{ Params: { id: string }; Querystring: { cursor?: string } }>(
    "/v1/jobs/:id",
    TOKEN,
    async (request, reply) => {
      const id = idOf(request.params.id);
      const job = found(await jobs.get(id, request.caller?.id ?? ""), id);
      return send(reply, await jobReply(store.jobs, job, request.query.cursor, options));
    },
  );

  app.delete<{ Params: { id: string } }>("/v1/jobs/:id", TOKEN, async (request, reply) => {
    const id = idOf(request.params.id);
    const job = found(await jobs.cancel(id, request.caller?.id ?? ""), id);
    // Cancelled (or done before), it answers with its results; a run on another replica stops at its next renewal.
    return send(reply, await jobReply(store.jobs, job, undefined, options));
  });
};
