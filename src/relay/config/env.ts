import { z } from "zod";
import { budgetList, tokenList } from "../callers/token-config";
import { blankIsUnset, isSafeUrl, num, originList, str } from "./env-readers";

/*
 * Every variable the relay reads, with its rule; each one's JSDoc gives its default and why
 * (docs/configuration.md is the user's page). config.ts turns the parsed values into RelayConfig.
 */

/** Headers every upstream call already carries: the key cannot go in one of them. */
const RELAY_SET_HEADERS = new Set([
  "host",
  "content-type",
  "content-length",
  "accept",
  "user-agent",
  "connection",
  "transfer-encoding",
]);

export const Env = z.object({
  /** The service's API key. Unset → the embedded sandbox (simulated data). */
  STR_API_KEY: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^\S{8,}$/, { error: "must be the service's API key (8 or more characters, no spaces)" })
      .optional(),
  ),
  /**
   * The service's base URL (https). @default https://atlas.bnbcalc.com with STR_API_KEY — where the
   * live service's integrations call it (observed-behaviour.md); the spec itself gives none.
   */
  STR_API_BASE_URL: z.preprocess(
    blankIsUnset,
    z.string().refine(isSafeUrl, { error: "must be an https URL (http only for localhost)" }).optional(),
  ),
  /**
   * The header the key is sent in. @default x-bnbcalc-api-key — the live service's; `x-service-api-key`
   * for a service that follows the spec's placeholder. Headers the relay sets itself are refused.
   */
  STR_API_KEY_HEADER: z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/, { error: "must be an HTTP header name (letters, digits and - _ . only)" })
      .refine((name) => !RELAY_SET_HEADERS.has(name), {
        error: `must not be a header the relay sets itself (${[...RELAY_SET_HEADERS].join(", ")})`,
      })
      .optional(),
  ),
  /** @default 127.0.0.1 — only this machine can reach the relay until you choose otherwise. */
  RELAY_HOST: str(),
  /** @default 8787 */
  RELAY_PORT: num({ min: 0, max: 65535, integer: true }),
  /** Where users reach the relay; the served manifest points there. @default http(s)://localhost:<port> */
  RELAY_PUBLIC_URL: z.preprocess(
    blankIsUnset,
    z.string().refine(isSafeUrl, { error: "must be an https URL (http only for localhost)" }).optional(),
  ),
  /**
   * Comma-separated bearer tokens, each optionally `label:token` (token-config.ts). Unset → one is
   * generated at first start and kept in the data dir.
   */
  RELAY_TOKENS: z.preprocess(blankIsUnset, z.string().transform(tokenList).optional()),
  /** `label:USD` per labelled token: its own daily cap beside the relay's. @default unset: the relay's budget only */
  RELAY_TOKEN_BUDGETS_USD_PER_DAY: z.preprocess(blankIsUnset, z.string().transform(budgetList).optional()),
  /** Origins allowed to call from a browser. @default https://localhost:3000 (the dev server) and the public URL's origin */
  RELAY_ALLOWED_ORIGINS: z.preprocess(blankIsUnset, z.string().transform(originList).optional()),
  /** The SQLite store and the generated token live here. @default the user's data directory */
  RELAY_DATA_DIR: str(),
  /**
   * Accept a data directory (and files in it) owned by another user than the relay's: a container
   * whose volume belongs to another uid. @default false — another user could have planted a token or a link there
   */
  RELAY_DATA_DIR_ALLOW_OTHER_OWNER: z.preprocess(
    (v) => (typeof v === "string" ? ({ true: true, "1": true, false: false, "0": false }[v.trim()] ?? v) : v),
    z.boolean({ error: "must be true or false (or 1 or 0)" }).optional(),
  ),
  /** Requests a second sent to the service, across all replicas (spec: 100). @default 100 */
  RELAY_UPSTREAM_RPS: num({ min: 0.1, max: 10_000, unit: "requests a second" }),
  /** Daily spending cap in USD. @default 100 live; 1000 on the sandbox (simulated money) */
  RELAY_BUDGET_USD_PER_DAY: num({ min: 0, unit: "USD" }),
  /** Age after which a cached analysis is fetched (and billed) again. @default unset: never — only an explicit refresh bills */
  RELAY_CACHE_TTL_HOURS: num({ min: 0, exclusiveMin: true, unit: "hours" }),
  /**
   * Age after which a cached answer is marked stale (`relay.stale`: its age and what a refresh costs),
   * so cells say so; it is still served, free — only the user's refresh bills. @default 30
   */
  RELAY_STALE_AFTER_DAYS: num({ min: 0, exclusiveMin: true, unit: "days" }),
  RELAY_TLS_CERT: str(),
  RELAY_TLS_KEY: str(),
  /** Serve https with office-addin-dev-certs' localhost certificate (tls-dev-certs.ts). @default false */
  RELAY_TLS_DEV_CERTS: z.preprocess(
    (v) => (typeof v === "string" ? ({ true: true, "1": true, false: false, "0": false }[v.trim()] ?? v) : v),
    z.boolean({ error: "must be true or false (or 1 or 0)" }).optional(),
  ),
  /** Names a non-production deployment: its add-in is "STR Underwriting (<name>)" in Excel. @default unset */
  RELAY_DEPLOYMENT_NAME: z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,31}$/, {
        error:
          "must be 1 to 32 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit (Excel shows it as STR Underwriting (<name>))",
      })
      .optional(),
  ),
  /** Redis for pacing, cache and locks shared by replicas (with DATABASE_URL). */
  REDIS_URL: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^rediss?:\/\//, { error: "must be a redis:// or rediss:// URL" })
      .optional(),
  ),
  /** Postgres for the ledger and analyses shared by replicas (with REDIS_URL). */
  DATABASE_URL: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, { error: "must be a postgres:// URL" })
      .optional(),
  ),
  /**
   * The shared store's Postgres schema and Redis key prefix. Replicas of one deployment share it
   * (the pacing bucket is per namespace); another namespace is another, separate relay. @default str_relay
   */
  RELAY_STORE_NAMESPACE: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, {
        error: "must be 1 to 63 lowercase letters, digits or _, not starting with a digit (it names a Postgres schema)",
      })
      .optional(),
  ),
  /**
   * How often a replica says it is alive. After 3 missed beats its calls in flight count as unknown
   * and the request locks it held expire, so a dead replica blocks nothing for long. @default 10
   */
  RELAY_HEARTBEAT_SECONDS: num({ min: 0.1, max: 600, unit: "seconds" }),
  /** Seconds to wait for the service; AI steps take up to 90 s and the spec asks for at least 300. @default 300 */
  RELAY_UPSTREAM_TIMEOUT_SECONDS: num({ min: 1, max: 3600, unit: "seconds" }),
  /**
   * The longest a batch answer stays open: Excel cuts a custom function's request at about 60 s, and
   * proxies have limits of their own. Items still running then get a pending line (status 202) and
   * go on; the client asks for them again. @default 45
   */
  RELAY_MAX_REQUEST_SECONDS: num({ min: 1, max: 3600, unit: "seconds" }),
  /** Requests a second one caller (token) may make, with bursts of 4×. @default 50 */
  RELAY_CALLER_RPS: num({ min: 1, max: 100_000, unit: "requests a second" }),
  /** Largest request body in bytes; the default leaves room for a batch of 10,000 items. @default 8 MiB */
  RELAY_BODY_LIMIT_BYTES: num({ min: 1024, max: 100 * 1024 * 1024, integer: true, unit: "bytes" }),
  /** fatal, error, warn, info, debug, trace or silent. @default info */
  RELAY_LOG_LEVEL: z.preprocess(
    blankIsUnset,
    z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
        error: "must be one of fatal, error, warn, info, debug, trace or silent",
      })
      .optional(),
  ),
});
export type Env = z.infer<typeof Env>;
