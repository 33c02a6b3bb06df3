import { ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { Client } from "pg";
import { SharedStore } from "../../src/relay/store/shared-store";
import { Sandbox, buildSandbox, listenOnLoopback } from "../../src/sandbox/sandbox-server";

/**
 * For the scale-out suites: this machine's Redis and Postgres (REDIS_URL, DATABASE_URL), a
 * namespace of their own for each run, relay and sandbox processes started from the built lib/,
 * and a TCP proxy that can cut a store away and bring it back.
 */
export const ROOT = path.resolve(__dirname, "../..");

export interface SharedUrls {
  redisUrl: string;
  databaseUrl: string;
}

export function sharedUrls(): SharedUrls | { missing: string[] } {
  const redisUrl = process.env.REDIS_URL?.trim();
  const databaseUrl = process.env.DATABASE_URL?.trim();
  if (redisUrl && databaseUrl) return { redisUrl, databaseUrl };
  return { missing: [...(redisUrl ? [] : ["REDIS_URL"]), ...(databaseUrl ? [] : ["DATABASE_URL"])] };
}

/**
 * `describe` when Redis and Postgres are configured; otherwise one skipped test whose name says
 * which variable is unset (.ci/run sets both and starts the servers).
 */
export function describeShared(name: string, body: (urls: SharedUrls) => void): void {
  const urls = sharedUrls();
  if ("missing" in urls) {
    describe(name, () => {
      test.skip(`skipped: ${urls.missing.join(" and ")} ${urls.missing.length > 1 ? "are" : "is"} not set (the scale-out suite needs this machine's Redis and PostgreSQL)`, () =>
        undefined);
    });
    return;
  }
  describe(name, () => body(urls));
}

/** A namespace no other run uses: its own Postgres schema and Redis keys. */
export function testNamespace(label: string): string {
  return `t_${label}_${process.pid}_${randomBytes(3).toString("hex")}`;
}

/** Drops a namespace's schema and keys. */
export async function dropNamespace(urls: SharedUrls, namespace: string): Promise<void> {
  const pg = new Client({ connectionString: urls.databaseUrl });
  await pg.connect();
  try {
    await pg.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
  } finally {
    await pg.end();
  }
  const redis = new Redis(urls.redisUrl);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${namespace}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}

export function openTestStore(urls: SharedUrls, namespace: string, lockLeaseMs = 3000): Promise<SharedStore> {
  return SharedStore.open({ ...urls, namespace, lockLeaseMs, clientName: "str-relay-test" });
}

/** A port nothing listens on (the store proxies and refused-connection tests). */
export { freePort as closedPort } from "./ports";

/** The same URL pointing at another port: redis://127.0.0.1:6379 → redis://127.0.0.1:<port>. */
export function withPort(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  u.port = String(port);
  return u.toString();
}

/**
 * A TCP proxy to a store on a fixed local port: `down()` cuts every connection and stops
 * listening (the store is "away"), `up()` listens again on the same port.
 */
export class StoreProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;
  port = 0;

  constructor(targetUrl: string) {
    const u = new URL(targetUrl);
    this.#target = { host: u.hostname, port: Number(u.port) };
  }

  async up(): Promise<void> {
    if (this.#server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#target);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", () => resolve()));
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Builds lib/ when any source is newer than it: the processes below run what users run. */
export function ensureBuilt(): void {
  const newest = (dir: string): number => {
    let t = 0;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      t = Math.max(t, entry.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
    }
    return t;
  };
  const built = path.join(ROOT, "lib", "relay", "str-relay.js");
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(path.join(ROOT, "src"))) return;
  // Type errors elsewhere (work in progress) do not stop tsc from emitting; `npm run typecheck` reports them.
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(ROOT, "tsconfig.node.json")],
    { encoding: "utf8" },
  );
  if (!fs.existsSync(built)) throw new Error(`building lib/ failed:\n${run.stdout}${run.stderr}`);
  // tsc leaves unchanged outputs alone; mark the build as newer than the sources.
  const now = new Date();
  fs.utimesSync(built, now, now);
}

export interface Child {
  process: ChildProcess;
  url: string;
  output: string[];
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: the process dies mid-whatever, as a crashed replica does. */
  kill(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/**
 * The environment a child starts from: this process's, less the store variables. CI sets REDIS_URL
 * and DATABASE_URL for the scale-out suites; a relay that inherited them would keep its ledger in
 * Postgres, where a test reading its SQLite file finds nothing. A child gets a shared store only
 * when it is given one (startReplica).
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { REDIS_URL: _redis, DATABASE_URL: _database, ...inherited } = process.env;
  return { ...inherited, ...env };
}

export interface ChildOptions {
  /** Modules the child loads before its entry (`node --require`), e.g. CLOCK_AHEAD_PRELOAD. */
  preload?: string[];
}

/** A preload that runs the child's `Date.now` ahead by CLOCK_AHEAD_MS: a replica whose clock is wrong. */
export const CLOCK_AHEAD_PRELOAD = path.join(__dirname, "clock-ahead.cjs");

/** Starts `node lib/<entry>` and waits for the line that says where it listens. */
export function startChild(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  options: ChildOptions = {},
): Promise<Child> {
  const preload = (options.preload ?? []).flatMap((file) => ["--require", file]);
  const child = spawn(process.execPath, [...preload, path.join(ROOT, "lib", entry)], {
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  const output: string[] = [];
  const ended = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const end = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return ended;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output.join("")}`)), 20_000);
    // The relay's banner is on stderr (its stdout is the JSON log); the sandbox's is on stdout.
    const read = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = ready.exec(output.join(""));
      if (match) {
        clearTimeout(timer);
        resolve({ process: child, url: match[1] as string, output, stop: end("SIGTERM"), kill: end("SIGKILL") });
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output.join("")}`));
    });
  });
}

export const SANDBOX_KEY = "sk_scale_test_key_0123456789";
export const RELAY_TOKEN = "scale-token-0123456789abcdef";

/**
 * The sandbox as a process of its own, the service the relays call. The service counts requests on
 * machines of its own; this one shares the machine with the relays, the test and whatever else runs.
 * It stamps a request when its event loop reads it, so a sandbox kept off the CPU reads the requests
 * of those moments late, together, and may count a 101st in a second (and answer 429) though they
 * left the relay paced. It runs at a higher CPU priority where this user may give one (root);
 * elsewhere it runs as it did.
 */
export async function startSandboxProcess(env: Record<string, string> = {}): Promise<Child> {
  const sandbox = await startChild(
    "sandbox/standalone.js",
    {
      SANDBOX_PORT: "0",
      SANDBOX_API_KEYS: SANDBOX_KEY,
      SANDBOX_AI_FAILURE_RATE: "0",
      SANDBOX_AI_TIMEOUT_RATE: "0",
      ...env,
    },
    /listening on (http:\/\/[\d.]+:\d+)/,
  );
  try {
    if (sandbox.process.pid !== undefined) os.setPriority(sandbox.process.pid, -10);
  } catch {
    // Not allowed: the default priority.
  }
  return sandbox;
}

/** A relay replica in live mode against `sandboxUrl`, on the shared store's `namespace`. */
export function startReplica(
  urls: SharedUrls,
  namespace: string,
  sandboxUrl: string,
  env: Record<string, string> = {},
  options: ChildOptions = {},
): Promise<Child> {
  return startChild(
    "relay/str-relay.js",
    {
      STR_API_KEY: SANDBOX_KEY,
      STR_API_BASE_URL: sandboxUrl,
      RELAY_PORT: "0",
      RELAY_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "str-scale-")),
      RELAY_TOKENS: RELAY_TOKEN,
      RELAY_CALLER_RPS: "100000",
      RELAY_BUDGET_USD_PER_DAY: "100000",
      RELAY_LOG_LEVEL: "warn",
      REDIS_URL: urls.redisUrl,
      DATABASE_URL: urls.databaseUrl,
      RELAY_STORE_NAMESPACE: namespace,
      ...env,
    },
    /listening on (https?:\/\/[\d.]+:\d+)/,
    options,
  );
}

export interface SandboxStats {
  arrivals: number;
  maxPerSecond: number;
  statuses: Record<string, number>;
  billing: { calls: number; reports: number; aiFunctions: number; cents: number };
  duplicateCreates: number;
}

export async function sandboxStats(sandboxUrl: string): Promise<SandboxStats> {
  return (await (await fetch(`${sandboxUrl}/__sandbox/stats`)).json()) as SandboxStats;
}

export async function resetSandbox(sandboxUrl: string): Promise<void> {
  await fetch(`${sandboxUrl}/__sandbox/reset`, { method: "POST" });
}

const auth = { authorization: `Bearer ${RELAY_TOKEN}`, "content-type": "application/json" };

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: "POST", headers: { ...auth, ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

export interface BatchLine {
  index: number;
  status: number;
  body: any;
}

/**
 * Runs a batch on one replica, collecting its lines as they arrive. Ends when the relay ends the
 * stream, or when the connection breaks (a killed replica): the lines received until then.
 */
export async function runBatch(
  relayUrl: string,
  items: unknown[],
  onLine?: (line: BatchLine) => void,
): Promise<{ lines: BatchLine[]; broken: boolean }> {
  const lines: BatchLine[] = [];
  let broken = false;
  try {
    const res = await fetch(`${relayUrl}/v1/batch`, { method: "POST", headers: auth, body: JSON.stringify({ items }) });
    if (!res.body) throw new Error(`batch answered ${res.status} without a body`);
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      for (const text of parts.filter(Boolean)) {
        const line = JSON.parse(text) as BatchLine;
        lines.push(line);
        onLine?.(line);
      }
    }
  } catch {
    broken = true;
  }
  return { lines, broken };
}

export function buyParams(n: number, tag = "Scale") {
  return {
    fullAddress: `${100 + n} ${tag} Ave, Austin TX`,
    purchasePriceUSD: 300_000 + (n % 50) * 5000,
    bedrooms: 1 + (n % 4),
    bathrooms: 1 + (n % 3),
    accomodates: 2 + (n % 6),
  };
}

/** Polls `check` until it is true or `ms` pass. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A sandbox in this process on a loopback port of its own, for in-process replicas to call: reports
 * take 100–300 ms (so two replicas' calls for one item overlap), AI steps never fail.
 */
export async function listeningSandbox(apiKey: string): Promise<{ sandbox: Sandbox; url: string }> {
  const sandbox = buildSandbox({ timeScale: 0.01, apiKeys: [apiKey], faults: { aiFailureRate: 0, aiTimeoutRate: 0 } });
  return { sandbox, url: await listenOnLoopback(sandbox) };
}
