import { JOB_PAGE_SIZE } from "../../../contract";
import { GUARD_ERRORS, Json, errorResponses, json, ref } from "./schemas";

/*
 * The jobs' paths (routes/jobs.ts) in Power Automate's asynchronous pattern: a 202 with Location and
 * Retry-After, which the flow polls until a 200. Microsoft documents no x-ms-* extension for it: the
 * 202 and its Location at run time are what the designer's "Asynchronous pattern" setting follows.
 */

const ID = {
  name: "id",
  in: "path",
  required: true,
  description: "The job's id, as POST /v1/jobs gave it.",
  schema: { type: "string", format: "uuid" },
};

const RUNNING = {
  description: "The job runs: ask again at `Location` after `Retry-After` seconds (Power Automate does so on its own).",
  headers: {
    Location: { description: "The job's absolute URL, on the relay's public URL.", schema: { type: "string" } },
    "Retry-After": { description: "Seconds to wait before asking again.", schema: { type: "integer" } },
  },
  content: json(ref("JobRunningAnswer")),
};

const RESULTS = {
  description: `Done or cancelled: one result per item in the items' order (\`STR_CANCELLED\` for an item a cancel left unanswered), at most ${JOB_PAGE_SIZE} a page; \`next\` names the next page.`,
  content: json(ref("JobResultsAnswer")),
};

const READ_ERRORS = errorResponses([...GUARD_ERRORS, "STR_VALIDATION", "STR_NOT_FOUND", "STR_STORE_UNAVAILABLE"]);

export function jobPaths(): Json {
  return {
    "/v1/jobs": {
      post: {
        operationId: "createJob",
        summary: "Create a job (many analyses run in the background, polled for their results)",
        description:
          "The body of POST /v1/batch. Answers at once with `202`, `Location` and `Retry-After`; the items then run as a batch's do (the cache, the budget, the pacing), at `bulk` priority unless the body names one. With `dryRun: true`, a batch's price and no job. The job and its results are kept for 24 hours after it ends, for the token that started it only.",
        tags: ["jobs"],
        requestBody: { required: true, content: json(ref("BatchRequest")) },
        responses: {
          "200": { description: "With `dryRun: true`: what the job would cost.", content: json(ref("DryRunAnswer")) },
          "202": RUNNING,
          ...errorResponses([
            ...GUARD_ERRORS,
            "STR_BODY_TOO_LARGE",
            "STR_BATCH_TOO_LARGE",
            "STR_UNSUPPORTED_MEDIA_TYPE",
            "STR_STORE_UNAVAILABLE",
          ]),
        },
      },
    },
    "/v1/jobs/{id}": {
      get: {
        operationId: "getJob",
        summary: "Get a job (its progress while it runs, then its results; free)",
        description:
          "`202` with the progress while the job runs, then `200` with its results, a page at a time. A job whose relay stopped resumes when asked: items not answered run again, never bought twice.",
        tags: ["jobs"],
        parameters: [
          ID,
          {
            name: "cursor",
            in: "query",
            required: false,
            description: "The `next` of the previous page.",
            schema: { type: "string", pattern: "^[0-9]{1,9}$" },
          },
        ],
        responses: { "200": RESULTS, "202": RUNNING, ...READ_ERRORS },
      },
      delete: {
        operationId: "cancelJob",
        summary: "Cancel a job (its items not sent yet are not sent; free)",
        description:
          "Calls already sent finish and are recorded. Answers with the job and the results of what finished.",
        tags: ["jobs"],
        parameters: [ID],
        responses: { "200": RESULTS, ...READ_ERRORS },
      },
    },
  };
}
