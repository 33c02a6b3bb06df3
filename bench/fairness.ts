import os from "node:os";
import {
  Figures,
  bulkAlone,
  formulaBesideOwnScreening,
  singlesBesideBulk,
  spread,
  startFairReplica,
  startSoloRelay,
  twoBulkBatches,
} from "../test/support/fairness";
import { Child, SharedUrls, dropNamespace, startSandboxProcess, testNamespace } from "../test/support/scale";
import { percentile, verdict } from "./support";

/**
 * npm run bench:fairness — many analysts, one key (relay.md, "Sharing the account's rate"). Relays
 * and a sandbox as separate processes on loopback; the sandbox admits at most 100 requests in any
 * 1-s window, as the service does, and takes 0.1–0.3 s a report. Two callers, each with a token.
 *
 *   1. One relay (SQLite): caller B's single analyses, one a second, while caller A's 1,500-item bulk
 *      batch runs: each answered within 2 s.
 *   2. The same on two replicas on Redis + Postgres: A on one, B on the other; then both on one.
 *   3. A's formula requests while A's own screening (800 items) runs: each within 2 s.
 *   4. Two callers' bulk batches of 600 started together, on one relay and on two replicas: their
 *      times within 15 % of each other.
 *   5. One bulk batch of 1,500 alone: its time ≤ 1.10 × the pacing floor (1,500 ÷ 100 a second), no 429.
 *
 * REDIS_URL and DATABASE_URL name the servers (defaults: this machine's); the replicas keep their
 * data in a namespace of their own, dropped at the end. BENCH_SKIP_REPLICAS=1 leaves out 2 and 4's replicas.
 */
const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";

const out = (line = "") => process.stdout.write(`${line}\n`);
const figure = (name: string, value: string, target: string, ok: boolean) =>
  `  ${name.padEnd(44)} ${value.padEnd(16)} target ${target.padEnd(12)} ${verdict(ok)}`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The waits' spread and the sandbox's view of the run. */
function describeWaits(f: Figures): string {
  const sorted = [...f.waits].sort((a, b) => a - b);
  return `${f.waits.length} requests: min ${s(sorted[0] ?? NaN)}, median ${s(percentile(sorted, 0.5))}, max ${s(sorted.at(-1) ?? NaN)}; batch ${s(f.batchMs[0] ?? NaN)}; ${f.throttled} × 429, most in 1 s ${f.maxPerSecond}`;
}

function allAnswered(f: Figures): boolean {
  return f.statuses.every((x) => x === 200);
}

function waitsFigure(name: string, f: Figures): string[] {
  const max = Math.max(...f.waits);
  return [`  ${describeWaits(f)}`, figure(name, s(max), "< 2 s", max < 2000 && allAnswered(f))];
}

function batchesFigure(name: string, f: Figures): string[] {
  const apart = spread(f.batchMs);
  return [
    `  A ${s(f.batchMs[0] ?? NaN)}, B ${s(f.batchMs[1] ?? NaN)}; ${f.throttled} × 429, most in 1 s ${f.maxPerSecond}`,
    figure(name, `${(apart * 100).toFixed(1)} %`, "≤ 15 %", apart <= 0.15 && allAnswered(f)),
  ];
}

async function main(): Promise<void> {
  const urls: SharedUrls = {
    redisUrl: process.env.REDIS_URL?.trim() || DEFAULT_REDIS_URL,
    databaseUrl: process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL,
  };
  const withReplicas = process.env.BENCH_SKIP_REPLICAS !== "1";
  const namespace = testNamespace("fairbench");
  const children: Child[] = [];
  const cleanup = async () => {
    await Promise.allSettled(children.map((c) => c.stop()));
    if (withReplicas) await dropNamespace(urls, namespace).catch(() => undefined);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  try {
    out(`bench:fairness — two callers, one account at 100 requests a second (${os.cpus().length} cores, shared)`);
    out(
      `  load average before: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(", ")}`,
    );
    const sandbox = await startSandboxProcess({ SANDBOX_TIME_SCALE: "0.01" });
    children.push(sandbox);
    const relay = await startSoloRelay(sandbox.url);
    children.push(relay);

    out();
    out("1. one relay: B's single analyses, one a second, while A's 1,500-item bulk batch runs");
    for (const line of waitsFigure("B's slowest answer", await singlesBesideBulk(sandbox.url, relay.url, relay.url)))
      out(line);

    let replicas: [Child, Child] | undefined;
    if (withReplicas) {
      replicas = await Promise.all([
        startFairReplica(urls, namespace, sandbox.url),
        startFairReplica(urls, namespace, sandbox.url),
      ]);
      children.push(...replicas);
      const [one, two] = replicas;
      out();
      out("2. two replicas on Redis + Postgres: the same, A on replica 1 and B on replica 2, then both on replica 1");
      for (const line of waitsFigure(
        "B's slowest answer, apart",
        await singlesBesideBulk(sandbox.url, one.url, two.url),
      ))
        out(line);
      for (const line of waitsFigure(
        "B's slowest answer, together",
        await singlesBesideBulk(sandbox.url, one.url, one.url),
      ))
        out(line);
    }

    out();
    out("3. one relay: A's formula requests, one a second, while A's own 800-item screening runs");
    for (const line of waitsFigure(
      "A's slowest formula answer",
      await formulaBesideOwnScreening(sandbox.url, relay.url),
    ))
      out(line);

    out();
    out("4. two callers' 600-item bulk batches started together");
    for (const line of batchesFigure("one relay: apart", await twoBulkBatches(sandbox.url, relay.url, relay.url)))
      out(line);
    if (replicas) {
      const f = await twoBulkBatches(sandbox.url, replicas[0].url, replicas[1].url);
      for (const line of batchesFigure("two replicas, one each: apart", f)) out(line);
    }

    out();
    out("5. one relay: one 1,500-item bulk batch alone");
    const alone = await bulkAlone(sandbox.url, relay.url);
    out(`  ${s(alone.batchMs[0] ?? NaN)}; most in 1 s ${alone.maxPerSecond}`);
    out(figure("time ÷ pacing floor (15 s)", alone.overFloor.toFixed(3), "≤ 1.10", alone.overFloor <= 1.1));
    out(
      figure(
        "time ÷ what the pacing rule allows",
        alone.overPacing.toFixed(3),
        "≤ 1.10: the queue costs nothing",
        alone.overPacing <= 1.1,
      ),
    );
    out(figure("429s from the service", String(alone.throttled), "0", alone.throttled === 0 && allAnswered(alone)));
    out(
      `  load average after: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(", ")}`,
    );
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
