import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { NumberRule, numberField, toFieldIssues } from "../contract";
import { DAY_MS } from "./staleness";
import { devCertificate } from "./tls-dev-certs";
import { CallerRule, budgetList, callerRules, tokenList } from "./token-config";

/**
 * The relay's configuration, parsed once from the environment (docs/configuration.md).
 * A bad variable fails the start with every problem listed, each naming the variable and its rule.
 * An empty variable counts as unset (`RELAY_PORT=` in a .env file means "the default").
 */

const blankIsUnset = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const str = () => z.preprocess(blankIsUnset, z.string().trim().optional());
/** A number from text; text that is not a number is kept, so the error shows what was given. */
const num = (rule: NumberRule) =>
  z.preprocess((v) => {
    const t = blankIsUnset(v);
    return typeof t === "string" && Number.isFinite(Number(t)) ? Number(t) : t;
  }, numberField(rule).optional());
/** http only on this machine; anything that crosses a network is https. */
function isSafeUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (
      u.protocol === "https:" || (u.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname))
    );
  } catch {
    return false;
  }
}

/**
 * RELAY_ALLOWED_ORIGINS: each entry an origin (`scheme://host[:port]`). A trailing slash is dropped
 * and the host lower-cased, as browsers send it; a path, query, credentials or another scheme is
 * refused, since such an entry could never match and its origin would be refused while listed.
 */
function originList(text: string, ctx: z.RefinementCtx): string[] {
  const origins: string[] = [];
  for (const entry of text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const plain =
      url &&
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.pathname === "/" &&
      !url.search &&
      !url.hash &&
      !url.username &&
      !url.password;
    if (!url || !plain || !/^[a-z]+:\/\/[^/]+\/?$/i.test(entry)) {
      ctx.addIssue({
        code: "custom",
        message: `must be a comma-separated list of origins such as https://addin.example.com (scheme, host and port only); got ${JSON.stringify(entry)}`,
      });
      continue;
    }
    origins.push(url.origin);
  }
  return origins;
}

const Env = z.object({
  /** The service's API key. Unset → the embedded sandbox (simulated data). */
  STR_API_KEY: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^\S{8,}$/, { error: "must be the service's API key (8 or more characters, no spaces)" })
      .optional(),
  ),
  /** The service's base URL (https). Required with STR_API_KEY: the spec gives no default. */
  STR_API_BASE_URL: z.preprocess(
    blankIsUnset,
    z.string().refine(isSafeUrl, { error: "must be an https URL (http only for localhost)" }).optional(),
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
  /** Largest request body in bytes (a 10,000-item batch is about 3 MB). @default 8 MiB */
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
type Env = z.infer<typeof Env>;

export const DEFAULT_PORT = 8787;
/** A month: market figures (rates, occupancy, comparables) move with the seasons. */
export const DEFAULT_STALE_AFTER_DAYS = 30;
export const DEV_ADDIN_ORIGIN = "https://localhost:3000";

/** Where per-user data lives on each platform (the relay's store and generated token, the CLI's store). */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (process.platform === "win32")
    return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "str-underwriting");
  if (process.platform === "darwin") return path.join(home, "Library", "Application Support", "str-underwriting");
  return path.join(env.XDG_DATA_HOME ?? path.join(home, ".local", "share"), "str-underwriting");
}

export interface RelayConfig {
  mode: "sandbox" | "live";
  apiKey: string | undefined;
  apiBaseUrl: string | undefined;
  host: string;
  port: number;
  publicUrl: string;
  /** Configured tokens; undefined → generated (see tokens.ts). */
  tokens: string[] | undefined;
  /** Labels and own budgets of the configured tokens, by token id (token-config.ts). */
  callers: CallerRule[];
  allowedOrigins: string[];
  dataDir: string;
  upstreamRps: number;
  budgetUSDPerDay: number;
  cacheTtlMs: number | undefined;
  /** Cached answers at least this old are served marked stale. */
  staleAfterMs: number;
  tls: { cert: string; key: string } | undefined;
  /** Non-production deployments' name, shown in Excel beside the add-in's (deployment.ts). */
  deploymentName: string | undefined;
  redisUrl: string | undefined;
  databaseUrl: string | undefined;
  storeNamespace: string;
  heartbeatMs: number;
  upstreamTimeoutMs: number;
  /** A batch answer ends by then, items still running marked pending. */
  maxRequestMs: number;
  callerRps: number;
  bodyLimitBytes: number;
  logLevel: string;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Secrets are never echoed in an error, even a wrong one: it may be a real key one character off. */
const SECRET_VARIABLES = new Set(["STR_API_KEY", "RELAY_TOKENS", "DATABASE_URL", "REDIS_URL"]);

/** A problem named as the user set it: the variable, the rule, and (unless secret) what it held. */
function withValue(path: string, message: string, env: NodeJS.ProcessEnv): string {
  const name = path.replace(/\[.*$/, "");
  if (/; got /.test(message) || SECRET_VARIABLES.has(name)) return `${path} ${message}`;
  return `${path} ${message}; got ${JSON.stringify(env[name])}`;
}

/** Parses the environment into the relay's configuration, or throws a ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): RelayConfig {
  const parsed = Env.safeParse(env);
  const problems: string[] = parsed.success
    ? []
    : toFieldIssues(parsed.error).map((i) => withValue(i.path, i.message, env));
  const e: Partial<Env> = parsed.success ? parsed.data : {};
  const set = (name: string) => typeof env[name] === "string" && (env[name] as string).trim() !== "";
  if (set("STR_API_KEY") && !set("STR_API_BASE_URL"))
    problems.push("STR_API_BASE_URL is required with STR_API_KEY (the service's https base URL)");
  if (!set("STR_API_KEY") && set("STR_API_BASE_URL"))
    problems.push("STR_API_KEY is required with STR_API_BASE_URL (or unset both to run on the sandbox)");
  if (set("RELAY_TLS_CERT") !== set("RELAY_TLS_KEY"))
    problems.push("RELAY_TLS_CERT and RELAY_TLS_KEY go together: set both or neither");
  if (e.RELAY_TLS_DEV_CERTS && set("RELAY_TLS_CERT"))
    problems.push("RELAY_TLS_DEV_CERTS and RELAY_TLS_CERT both name a certificate: set one of them");
  const devCerts = e.RELAY_TLS_DEV_CERTS ? devCertificate(env) : undefined;
  if (typeof devCerts === "string") problems.push(devCerts);
  if (set("REDIS_URL") !== set("DATABASE_URL"))
    problems.push("REDIS_URL and DATABASE_URL go together (replicas share both): set both or neither");
  const callers = callersOf(env);
  problems.push(...callers.problems);
  if (problems.length > 0) throw new ConfigError(`Invalid relay configuration:\n  - ${problems.join("\n  - ")}`);

  const mode = e.STR_API_KEY ? "live" : "sandbox";
  const port = e.RELAY_PORT ?? DEFAULT_PORT;
  const tls =
    e.RELAY_TLS_CERT && e.RELAY_TLS_KEY
      ? { cert: e.RELAY_TLS_CERT, key: e.RELAY_TLS_KEY }
      : typeof devCerts === "object"
        ? devCerts
        : undefined;
  const publicUrl = (e.RELAY_PUBLIC_URL ?? `${tls ? "https" : "http"}://localhost:${port}`).replace(/\/+$/, "");
  const origins = new Set(e.RELAY_ALLOWED_ORIGINS ?? [DEV_ADDIN_ORIGIN]);
  origins.add(new URL(publicUrl).origin);
  return {
    mode,
    apiKey: e.STR_API_KEY,
    apiBaseUrl: e.STR_API_BASE_URL?.replace(/\/+$/, ""),
    host: e.RELAY_HOST ?? "127.0.0.1",
    port,
    publicUrl,
    tokens: e.RELAY_TOKENS?.map((t) => t.token),
    callers: callers.rules,
    allowedOrigins: [...origins],
    dataDir: path.resolve(e.RELAY_DATA_DIR ?? userDataDir(env)),
    upstreamRps: e.RELAY_UPSTREAM_RPS ?? 100,
    budgetUSDPerDay: e.RELAY_BUDGET_USD_PER_DAY ?? (mode === "live" ? 100 : 1000),
    cacheTtlMs: e.RELAY_CACHE_TTL_HOURS === undefined ? undefined : e.RELAY_CACHE_TTL_HOURS * 3_600_000,
    staleAfterMs: (e.RELAY_STALE_AFTER_DAYS ?? DEFAULT_STALE_AFTER_DAYS) * DAY_MS,
    tls,
    deploymentName: e.RELAY_DEPLOYMENT_NAME,
    redisUrl: e.REDIS_URL,
    databaseUrl: e.DATABASE_URL,
    storeNamespace: e.RELAY_STORE_NAMESPACE ?? "str_relay",
    heartbeatMs: (e.RELAY_HEARTBEAT_SECONDS ?? 10) * 1000,
    upstreamTimeoutMs: (e.RELAY_UPSTREAM_TIMEOUT_SECONDS ?? 300) * 1000,
    maxRequestMs: (e.RELAY_MAX_REQUEST_SECONDS ?? 45) * 1000,
    callerRps: e.RELAY_CALLER_RPS ?? 50,
    bodyLimitBytes: e.RELAY_BODY_LIMIT_BYTES ?? 8 * 1024 * 1024,
    logLevel: e.RELAY_LOG_LEVEL ?? "info",
  };
}

/** Each budget named beside a labelled token; checked once both variables parse on their own. */
function callersOf(env: NodeJS.ProcessEnv): ReturnType<typeof callerRules> {
  const tokens = Env.shape.RELAY_TOKENS.safeParse(env.RELAY_TOKENS);
  const budgets = Env.shape.RELAY_TOKEN_BUDGETS_USD_PER_DAY.safeParse(env.RELAY_TOKEN_BUDGETS_USD_PER_DAY);
  if (!tokens.success || !budgets.success) return { rules: [], problems: [] };
  return callerRules(tokens.data, budgets.data);
}
