import os from "node:os";
import path from "node:path";
import { API_KEY_HEADER, LIVE_API_BASE_URL, toFieldIssues } from "../contract";
import { Env } from "./config/env";
import { JOB_TTL_MS } from "./batch/jobs/job-store";
import { PENDING_LEASE_MS } from "./batch/pending";
import { DAY_MS } from "./gateway/staleness";
import { devCertificate } from "./http/tls-dev-certs";
import { CallerRule, callerRules } from "./callers/token-config";

/*
 * The relay's configuration, parsed once from the environment (docs/configuration.md; the variables
 * and their rules in config/env.ts). A bad variable fails the start with every problem listed, each
 * naming the variable and its rule.
 */

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
  /** The header the key goes in (the live service's unless STR_API_KEY_HEADER names another). */
  apiKeyHeader: string;
  host: string;
  port: number;
  publicUrl: string;
  /** Configured tokens; undefined → generated (see tokens.ts). */
  tokens: string[] | undefined;
  /** Labels and own budgets of the configured tokens, by token id (token-config.ts). */
  callers: CallerRule[];
  allowedOrigins: string[];
  dataDir: string;
  /** A data directory or file owned by another user is used rather than refused (private-files.ts). */
  dataDirAllowOtherOwner: boolean;
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
  /** How long an item answered as pending keeps its call for its caller to ask again (pending.ts). */
  pendingLeaseMs: number;
  /** How long a job is kept once done or cancelled (jobs/jobs.ts). */
  jobTtlMs: number;
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
  if (!set("STR_API_KEY") && set("STR_API_BASE_URL"))
    problems.push("STR_API_KEY is required with STR_API_BASE_URL (or unset both to run on the sandbox)");
  if (!set("STR_API_KEY") && set("STR_API_KEY_HEADER"))
    problems.push("STR_API_KEY is required with STR_API_KEY_HEADER (or unset both to run on the sandbox)");
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
    apiBaseUrl: mode === "live" ? (e.STR_API_BASE_URL ?? LIVE_API_BASE_URL).replace(/\/+$/, "") : undefined,
    apiKeyHeader: e.STR_API_KEY_HEADER ?? API_KEY_HEADER,
    host: e.RELAY_HOST ?? "127.0.0.1",
    port,
    publicUrl,
    tokens: e.RELAY_TOKENS?.map((t) => t.token),
    callers: callers.rules,
    allowedOrigins: [...origins],
    dataDir: path.resolve(e.RELAY_DATA_DIR ?? userDataDir(env)),
    dataDirAllowOtherOwner: e.RELAY_DATA_DIR_ALLOW_OTHER_OWNER ?? false,
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
    pendingLeaseMs: PENDING_LEASE_MS,
    jobTtlMs: JOB_TTL_MS,
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
