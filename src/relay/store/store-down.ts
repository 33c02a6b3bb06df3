import { RelayError } from "../relay-errors";

/*
 * What the relay says when Redis or Postgres is away. Apart from the drivers (shared-clients.ts), so
 * that the routes can tell it from other errors without loading ioredis and pg on a relay that runs
 * on its SQLite file.
 */

/**
 * A part of the shared store failed. It is a RelayError (503 STR_STORE_UNAVAILABLE) so that every
 * route answers it as such, not only the gateway's, and it names the part for /healthz. Its message
 * says what happened and what to do in the relay's words; the client library's error, which names
 * its own options ("Refer to maxRetriesPerRequest…"), stays as its cause.
 */
export class StoreDownError extends RelayError {
  readonly part: StorePart;

  constructor(part: StorePart, cause: unknown) {
    super(
      "STR_STORE_UNAVAILABLE",
      `The relay's store is unavailable (${part}: ${whatHappened(cause)}). Nothing was sent to the service. Try again in a moment; if this goes on, check that ${part} (${STORE_VARIABLES[part]}) is running and reachable from the relay.`,
      { cause },
    );
    this.part = part;
  }
}

const STORE_VARIABLES = { Redis: "REDIS_URL", Postgres: "DATABASE_URL" } as const;

/**
 * What ioredis and pg report when a server is away, in a few words. Checked in order: pg says
 * "Connection terminated due to connection timeout" for a connection that never came.
 */
const TROUBLES: readonly [RegExp, string][] = [
  [/timed out|timeout/i, "no answer in time"],
  [/ECONNREFUSED/, "connection refused"],
  [/ENOTFOUND|EAI_AGAIN/, "host not found"],
  [
    /max retries per request|Connection is closed|Connection terminated|ECONNRESET|EPIPE|socket hang up/i,
    "connection lost",
  ],
  [/isn't writeable|not connected/i, "not connected"],
];

function whatHappened(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  const said = `${typeof code === "string" ? code : ""} ${message}`;
  for (const [pattern, words] of TROUBLES) if (pattern.test(said)) return words;
  // The relay's own reasons (and anything unforeseen) as they are.
  return message || "no answer";
}

export type StorePart = "Redis" | "Postgres";

export function partError(part: StorePart, error: unknown): StoreDownError {
  return error instanceof StoreDownError ? error : new StoreDownError(part, error);
}
