import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Pool } from "undici";

/**
 * Shared by the benchmarks: processes started from the built lib/ (as users run them), a load
 * generator on undici, and the figures the benchmarks print.
 */
export const ROOT = path.resolve(__dirname, "..");

export interface Child {
  process: ChildProcess;
  url: string;
  output: string[];
  stop(): Promise<void>;
}

/** Starts `node lib/<entry>` and waits until it prints a line matching `ready` (which captures the URL). */
export function startChild(entry: string, env: Record<string, string>, ready: RegExp): Promise<Child> {
  // Without the store variables of this shell: a benchmark's relay uses a shared store only when given one.
  const { REDIS_URL: _redis, DATABASE_URL: _database, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(ROOT, "lib", entry)], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  // Never outlive the benchmark, however it ends.
  process.once("exit", () => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output.join("")}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = ready.exec(output.join(""));
      if (match) {
        clearTimeout(timer);
        resolve({
          process: child,
          url: match[1] as string,
          output,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    };
    // The relay's banner is on stderr (its stdout is the JSON log); the sandbox's is on stdout.
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output.join("")}`));
    });
  });
}

export function startSandbox(env: Record<string, string> = {}): Promise<Child> {
  return startChild("sandbox/standalone.js", { SANDBOX_PORT: "0", ...env }, /listening on (http:\/\/[\d.]+:\d+)/);
}

export const BENCH_TOKEN = "bench-token-0123456789abcdef";
export const BENCH_KEY = "sk_bench_key_0123456789";

/**
 * A relay process on a fresh data dir, removed when it stops (a store of a few thousand analyses is
 * hundreds of MiB); give RELAY_DATA_DIR to use, and keep, another.
 */
export async function startRelay(env: Record<string, string>): Promise<Child> {
  const dataDir = env.RELAY_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "str-bench-"));
  const remove = () => {
    if (env.RELAY_DATA_DIR === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let child: Child;
  try {
    child = await startChild(
      "relay/str-relay.js",
      {
        RELAY_PORT: "0",
        RELAY_DATA_DIR: dataDir,
        RELAY_TOKENS: BENCH_TOKEN,
        RELAY_CALLER_RPS: "100000",
        RELAY_BUDGET_USD_PER_DAY: "100000",
        RELAY_LOG_LEVEL: "warn",
        ...env,
      },
      /listening on (https?:\/\/[\d.]+:\d+)/,
    );
  } catch (error) {
    remove();
    throw error;
  }
  const stop = child.stop;
  return {
    ...child,
    stop: async () => {
      await stop();
      remove();
    },
  };
}

/** Peak resident memory of a process so far, in MiB (Linux: VmHWM). */
export function peakRssMiB(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

export interface Latencies {
  count: number;
  p50: number;
  p99: number;
  errors: number;
  /** Every latency, ms, in ascending order. */
  times: number[];
}

/** The latencies of several runs as one. */
export function pooled(runs: readonly Latencies[]): Latencies {
  const times = runs.flatMap((run) => run.times).sort((a, b) => a - b);
  const errors = runs.reduce((sum, run) => sum + run.errors, 0);
  return { count: times.length, p50: percentile(times, 0.5), p99: percentile(times, 0.99), errors, times };
}

/** Sends `make()` at a steady `perSecond` for `seconds` (open loop) and records each latency, ms. */
export async function steadyLoad(
  pool: Pool,
  perSecond: number,
  seconds: number,
  make: (i: number) => { path: string; body: string; headers: Record<string, string> },
): Promise<Latencies> {
  const total = Math.round(perSecond * seconds);
  const times: number[] = [];
  let errors = 0;
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const req = make(i);
    const t0 = performance.now();
    inflight.push(
      pool
        .request({
          method: "POST",
          path: req.path,
          body: req.body,
          headers: { "content-type": "application/json", ...req.headers },
        })
        .then(async (res) => {
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) errors++;
          times.push(performance.now() - t0);
        })
        .catch(() => {
          errors++;
        }),
    );
  }
  await Promise.all(inflight);
  times.sort((a, b) => a - b);
  return { count: times.length, p50: percentile(times, 0.5), p99: percentile(times, 0.99), errors, times };
}

/** Closed loop: `concurrency` callers as fast as they can for `seconds`; requests a second. */
export async function throughput(
  pool: Pool,
  concurrency: number,
  seconds: number,
  make: (i: number) => { path: string; body: string; headers: Record<string, string> },
): Promise<number> {
  let done = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; performance.now() < end; i += concurrency) {
        const req = make(i);
        const res = await pool.request({
          method: "POST",
          path: req.path,
          body: req.body,
          headers: { "content-type": "application/json", ...req.headers },
        });
        await res.body.arrayBuffer();
        done++;
      }
    }),
  );
  return done / seconds;
}

export function verdict(ok: boolean): string {
  return ok ? "PASS" : "MISS";
}

export function buyParams(n: number) {
  return {
    fullAddress: `${100 + n} Bench Ave, Austin TX`,
    purchasePriceUSD: 300_000 + (n % 50) * 5000,
    bedrooms: 1 + (n % 4),
    bathrooms: 1 + (n % 3),
    accomodates: 2 + (n % 6),
  };
}
