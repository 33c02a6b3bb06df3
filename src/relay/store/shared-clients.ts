import Redis from "ioredis";
import { Pool } from "pg";
import { partError } from "./store-down";

/*
 * The Redis and Postgres connections of the shared store, set to fail fast and heal by themselves.
 * A store that is away must answer at once (the gateway turns the failure into 503 and sends
 * nothing), never hold a command to run it later when nobody waits for it any more; and once the
 * server is back, the next request must find a working connection without a restart.
 */

/** How long one Redis command, or the wait for a Postgres connection, may take, ms. */
export const STORE_TIMEOUT_MS = 2000;
/** How long one Postgres statement may take, ms (a reservation is a short transaction of three). */
export const STATEMENT_TIMEOUT_MS = 5000;

export function redisClient(url: string, name: string): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    // Refused at once while disconnected, rather than queued to run minutes later.
    enableOfflineQueue: false,
    // A command in flight when the connection drops fails; it is not sent again on reconnect
    // (a lock taken twice or a pacing slot granted twice would be wrong, a 503 is not).
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: STORE_TIMEOUT_MS,
    connectTimeout: STORE_TIMEOUT_MS,
    // Reconnect for ever, at most a second apart: recovery needs no restart.
    retryStrategy: (times) => Math.min(100 * times, 1000),
    // Closing while not connected ends the socket and waits this long for it to close before
    // destroying it: nothing is in flight then, and a stopping relay should not linger 2 s (the default).
    disconnectTimeout: 200,
  });
  // Connection errors reach callers as failed commands (503) and /healthz; without a listener
  // ioredis would print each reconnect attempt to stderr.
  redis.on("error", () => undefined);
  return redis;
}

export function postgresPool(url: string, name: string): Pool {
  const pool = new Pool({
    connectionString: url,
    application_name: name,
    max: 10,
    connectionTimeoutMillis: STORE_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    // The client-side limit covers a server that stopped answering without closing the socket.
    query_timeout: STATEMENT_TIMEOUT_MS + 1000,
    // A replica that dies inside a transaction must not hold its locks for long.
    idle_in_transaction_session_timeout: 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  // An idle connection that breaks (Postgres restarted) is dropped by the pool; the next query opens
  // a new one. Without a listener the error would crash the process.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Throws at once unless the connection is up. ioredis would refuse the command anyway (no offline
 * queue), but only after arming its command timer, which then outlives the refusal.
 */
export function whenConnected(redis: Redis): void {
  if (redis.status !== "ready") throw new Error(`not connected (${redis.status})`);
}

/** Runs a command; Redis away is the store's "unavailable" error, naming Redis. */
export async function runRedis<T>(redis: Redis, fn: () => Promise<T>): Promise<T> {
  try {
    whenConnected(redis);
    return await fn();
  } catch (error) {
    throw partError("Redis", error);
  }
}

/** A Lua script loaded once and run by its SHA (ioredis falls back to EVAL when Redis lost it). */
export type RedisScript = (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

export function redisScript(redis: Redis, name: string, lua: string): RedisScript {
  redis.defineCommand(name, { lua });
  const command = (
    redis as unknown as Record<string, (numberOfKeys: number, ...rest: (string | number)[]) => Promise<unknown>>
  )[name];
  if (!command) throw new Error(`ioredis did not define the script ${name}`);
  return async (keys, args) => {
    whenConnected(redis);
    return command.call(redis, keys.length, ...keys, ...args);
  };
}
