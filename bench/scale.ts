import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { Pool } from "undici";
import { LedgerRow, Pacer, RedisPacer, SharedStore, relayParts } from "../src/relay";
import {
  BatchLine,
  Child,
  RELAY_TOKEN,
  SharedUrls,
  buyParams,
  dropNamespace,
  openTestStore,
  resetSandbox,
  runBatch,
  sandboxStats,
  startReplica,
  startSandboxProcess,
  testNamespace,
} from "../test/support/scale";
import { grantTimes, maxInWindow } from "../test/relay/pacer-cases";
import { verdict } from "./support";

/**
 * npm run bench:scale — relay replicas sharing Redis + Postgres, all as separate processes on
 * loopback, against one sandbox process throttled at the service's 100 requests a second.
 *
 *   1. The upstream limit is the account's, not the replica's: BENCH_ITEMS distinct uncached items
 *      through one replica, then as many other ones split across two replicas, then the same items
 *      sent to both replicas at once (each must be created once, the loser of each race joining the
 *      winner's call without spending a send slot). Elapsed two ÷ one
 *      (target 0.9–1.1: a second replica adds no upstream rate), the most requests the sandbox saw
 *      in any one-second window (target ≤ 100), its 429s (target 0), reports created twice
 *      (target 0), and the ledger rows.
 *   2. Cache hits scale with replicas: closed-loop requests a second of already-cached items through
 *      two replicas ÷ one (target ≥ 1.6), with the same total concurrency in both, after a warm-up.
 *      Each round measures both back to back (the order alternating); the verdict takes the median
 *      of the rounds' ratios, leaving out rounds during which other processes on the machine took
 *      more than a quarter of a core (when any round was quiet; every round is printed). The load goes
 *      straight to the replicas (no load balancer in between).
 *
 * Every process here shares this machine's cores: the load generator (this process), the replicas,
 * Redis, Postgres and the sandbox, and whatever else runs on the machine. The CPU figures say how
 * much each took, so a ratio can be read against what the machine had to give: a replica's
 * JavaScript runs on one thread, so one replica uses about one core, and two can only use what the
 * load generator and Redis leave of the rest.
 *
 * REDIS_URL and DATABASE_URL name the servers (defaults: this machine's, printed when used). The run
 * keeps its data in a namespace of its own (a Postgres schema and a Redis key prefix) and drops it
 * at the end, with its processes and temporary directories, however it ends.
 *
 *   3. What a cache hit costs, from the same rounds: the replicas' CPU time per 1,000 hits, and the
 *      store round trips per hit (Redis commands, pipelines and Postgres queries, counted inside
 *      each replica by a preload, bench/count-round-trips.cjs), for one replica and for two. Unlike
 *      throughput, these do not depend on what the rest of the machine is doing: a second replica
 *      should add no round trip and little CPU per hit (targets: round trips two ≤ one + 0.05,
 *      CPU two ≤ 1.25 × one).
 *   4. The pacers alone, in this process: 250 sends queued at once through the local pacer and
 *      through two Redis pacers, their time ÷ the least the pacing rule allows (target ≤ 1.10 each;
 *      the tests hold them to the rule, not to its pace), and, with each slot released as soon as
 *      it is granted, the median gap between a send and the one 100 after it (target: under one
 *      window plus half a slot's lifetime, so a slot's lifetime costs no throughput).
 *
 * Knobs: BENCH_ITEMS (1500), BENCH_SECONDS per measurement (4), BENCH_ROUNDS (5),
 * BENCH_CONCURRENCY callers in total (64).
 */
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const RPS = 100;
const BUY = "/v1/external/analysis/create/buy";
const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";

const out = (line = "") => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const items = (from: number, to: number, tag: string) =>
  Array.from({ length: to - from }, (_, i) => ({ strategy: "buy", params: buyParams(from + i, tag) }));

// --- CPU accounting from /proc (Linux); figures are left out elsewhere. ---

const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds a process has used so far (user + system), or undefined. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/**
 * CPU time of the whole machine so far, seconds (all cores): busy in all, and the part spent in
 * interrupts (loopback networking, mostly this benchmark's own), which no process is charged with.
 */
function machineCpu(): { busy: number; interrupts: number } | undefined {
  try {
    const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    // user nice system idle iowait irq softirq steal …
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const at = (i: number) => v[i] ?? 0;
    return { busy: (at(0) + at(1) + at(2) + at(5) + at(6) + at(7)) / TICKS, interrupts: (at(5) + at(6)) / TICKS };
  } catch {
    return undefined;
  }
}

interface Processes {
  replicas: (number | undefined)[];
  redis: number | undefined;
  sandbox: number | undefined;
}

interface CpuSample {
  replicas: (number | undefined)[];
  redis: number | undefined;
  sandbox: number | undefined;
  self: number;
  machine: { busy: number; interrupts: number } | undefined;
}

function sampleCpu(p: Processes): CpuSample {
  const self = process.cpuUsage();
  return {
    replicas: p.replicas.map(cpuSeconds),
    redis: cpuSeconds(p.redis),
    sandbox: cpuSeconds(p.sandbox),
    self: (self.user + self.system) / 1e6,
    machine: machineCpu(),
  };
}

/** Cores used by each part between two samples, over `seconds` of wall time. */
function coresUsed(a: CpuSample, b: CpuSample, seconds: number) {
  const d = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined ? undefined : (y - x) / seconds;
  const replicas = a.replicas.map((x, i) => d(x, b.replicas[i]));
  const redis = d(a.redis, b.redis);
  const sandbox = d(a.sandbox, b.sandbox);
  const self = (b.self - a.self) / seconds;
  const machineBusy = a.machine && b.machine ? (b.machine.busy - a.machine.busy) / seconds : undefined;
  const interrupts = a.machine && b.machine ? (b.machine.interrupts - a.machine.interrupts) / seconds : undefined;
  // Every other process meanwhile: Postgres, other people's work.
  const rest =
    machineBusy === undefined
      ? undefined
      : machineBusy - (interrupts ?? 0) - [...replicas, redis, sandbox, self].reduce<number>((s, x) => s + (x ?? 0), 0);
  return { replicas, redis, self, machineBusy, interrupts, rest };
}

const cores = (x: number | undefined) => (x === undefined ? "n/a" : Math.max(0, x).toFixed(2));
/** Other processes using less than this many cores leave a round "quiet". */
const QUIET_CORES = 0.25;

/** One figure: its name, value, target and verdict, in columns. */
const figure = (name: string, value: string, target: string, ok: boolean) =>
  `  ${name.padEnd(28)} ${value.padEnd(7)} target ${target.padEnd(40)} ${verdict(ok)}`;

/** The preload that counts each replica's store round trips into a file. */
const ROUND_TRIPS_PRELOAD = path.join(__dirname, "count-round-trips.cjs");

interface RoundTrips {
  redis: number;
  postgres: number;
}

/** The replicas' round trips so far, summed (their files are rewritten every 100 ms). */
function roundTrips(files: string[]): RoundTrips {
  const sum = { redis: 0, postgres: 0 };
  for (const file of files) {
    try {
      const counts = JSON.parse(fs.readFileSync(file, "utf8")) as RoundTrips;
      sum.redis += counts.redis;
      sum.postgres += counts.postgres;
    } catch {
      // Not written yet: none counted.
    }
  }
  return sum;
}

/** What the cache hits of one configuration cost in total: replicas' CPU seconds and round trips. */
interface HitCost {
  hits: number;
  cpuSeconds: number;
  redis: number;
  postgres: number;
}

// --- Load ---

interface LoadResult {
  done: number;
  bytes: number;
  errors: number;
  notCached: number;
  seconds: number;
  firstError: string | undefined;
}

/**
 * Closed loop: `concurrency` callers, spread evenly over `pools`, each sending its next request as
 * soon as the last is answered, for `seconds`. Each caller checks its first answer really is a
 * cache hit; the rest are counted by status only, to keep the load generator's own work small.
 */
async function closedLoop(
  pools: Pool[],
  concurrency: number,
  seconds: number,
  body: (i: number) => string,
): Promise<LoadResult> {
  const headers = { authorization: `Bearer ${RELAY_TOKEN}`, "content-type": "application/json" };
  let done = 0;
  let bytes = 0;
  let errors = 0;
  let notCached = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      const pool = pools[worker % pools.length] as Pool;
      for (let i = worker, first = true; performance.now() < end; i += concurrency, first = false) {
        try {
          const res = await pool.request({ method: "POST", path: BUY, body: body(i), headers });
          const buf = await res.body.arrayBuffer();
          if (res.statusCode !== 200) {
            errors++;
            firstError ??= `${res.statusCode} ${Buffer.from(buf).toString("utf8").slice(0, 200)}`;
            continue;
          }
          if (
            first &&
            (JSON.parse(Buffer.from(buf).toString("utf8")) as { relay?: { cached?: boolean } }).relay?.cached !== true
          )
            notCached++;
          done++;
          bytes += buf.byteLength;
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  return { done, bytes, errors, notCached, seconds: (performance.now() - start) / 1000, firstError };
}

interface PhaseResult {
  elapsed: number;
  lines: BatchLine[];
  stats: Awaited<ReturnType<typeof sandboxStats>>;
  ledger: LedgerRow[];
}

/** One batch per replica, all at once; the sandbox's counters and the ledger rows of this phase. */
async function pacedPhase(
  sandbox: Child,
  store: SharedStore,
  batches: { replica: Child; items: unknown[] }[],
): Promise<PhaseResult> {
  // The previous phase's sends leave the sandbox's one-second window first, then its counters start at 0.
  await sleep(1500);
  await resetSandbox(sandbox.url);
  const before = new Set((await store.ledger.rows()).map((r) => r.id));
  const start = performance.now();
  const runs = await Promise.all(batches.map((b) => runBatch(b.replica.url, b.items)));
  const elapsed = (performance.now() - start) / 1000;
  const stats = await sandboxStats(sandbox.url);
  const ledger = (await store.ledger.rows()).filter((r) => !before.has(r.id));
  return { elapsed, lines: runs.flatMap((r) => r.lines), stats, ledger };
}

function describePhase(label: string, r: PhaseResult, owners: Map<string, string>): string[] {
  const ok = r.lines.filter((l) => l.status === 200).length;
  const failed = r.lines.filter((l) => l.status !== 200);
  const billed = r.ledger.filter((row) => row.state === "billed");
  const byOwner = new Map<string, number>();
  for (const row of billed) {
    const name = owners.get(row.owner.split("-")[0] ?? "") ?? row.owner;
    byOwner.set(name, (byOwner.get(name) ?? 0) + 1);
  }
  const split = [...byOwner.entries()]
    .sort()
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
  const other = r.ledger.length - billed.length;
  return [
    `  ${label}: ${ok}/${r.lines.length} ok in ${r.elapsed.toFixed(2)} s (${(ok / r.elapsed).toFixed(1)} a second; ideal at ${RPS}/s: ${(ITEMS / RPS).toFixed(1)} s)`,
    ...(failed.length > 0 ? [`    first failure: ${JSON.stringify(failed[0]).slice(0, 300)}`] : []),
    `    at the sandbox: ${r.stats.arrivals} requests, most in any 1 s ${r.stats.maxPerSecond}, 429s ${r.stats.statuses["429"] ?? 0}, created twice ${r.stats.duplicateCreates}, reports billed ${r.stats.billing.reports}`,
    `    ledger: ${billed.length} billed (${split || "none"})${other > 0 ? `, ${other} in other states` : ""}`,
  ];
}

async function main(): Promise<void> {
  const defaulted: string[] = [];
  const redisUrl =
    process.env.REDIS_URL?.trim() || (defaulted.push(`REDIS_URL=${DEFAULT_REDIS_URL}`), DEFAULT_REDIS_URL);
  const databaseUrl =
    process.env.DATABASE_URL?.trim() || (defaulted.push(`DATABASE_URL=${DEFAULT_DATABASE_URL}`), DEFAULT_DATABASE_URL);
  const urls: SharedUrls = { redisUrl, databaseUrl };
  const namespace = testNamespace("bench");

  const children: Child[] = [];
  const dataDirs: string[] = [];
  const tripFiles: string[] = [];
  const pools: Pool[] = [];
  let store: SharedStore | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      await Promise.allSettled(pools.map((p) => p.close()));
      await Promise.allSettled(children.map((c) => c.stop()));
      await store?.close().catch(() => undefined);
      await dropNamespace(urls, namespace).catch((error: unknown) =>
        process.stderr.write(`could not drop namespace ${namespace}: ${String(error)}\n`),
      );
      for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      process.stderr.write(`${signal}: cleaning up\n`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    out(`bench:scale — relay replicas on Redis + Postgres, namespace ${namespace}`);
    if (defaulted.length > 0)
      out(`  ${defaulted.join(" and ")} (unset, so this machine's default${defaulted.length > 1 ? "s" : ""})`);
    out(`  ${os.cpus().length} CPU cores shared by this load generator, the replicas, the sandbox, Redis and Postgres`);

    // The service as the relay sees it: throttled at 100 req/s per key, reports taking 0.2–0.6 s.
    const sandbox = await startSandboxProcess({ SANDBOX_TIME_SCALE: "0.02", SANDBOX_RATE_LIMIT: String(RPS) });
    children.push(sandbox);
    const replica = async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-bench-scale-"));
      dataDirs.push(dir);
      const tripsFile = path.join(dir, "round-trips.json");
      tripFiles.push(tripsFile);
      const child = await startReplica(
        urls,
        namespace,
        sandbox.url,
        { RELAY_DATA_DIR: dir, RELAY_UPSTREAM_RPS: String(RPS), ROUND_TRIPS_FILE: tripsFile },
        { preload: [ROUND_TRIPS_PRELOAD] },
      );
      children.push(child);
      return child;
    };
    const a = await replica();
    const b = await replica();
    const owners = new Map([
      [String(a.process.pid), "A"],
      [String(b.process.pid), "B"],
    ]);
    store = await openTestStore(urls, namespace);
    await store.ping();

    // Warm-up: both replicas make a few calls (JIT, connections to the sandbox, Redis and Postgres).
    await Promise.all([runBatch(a.url, items(0, 20, "WarmA")), runBatch(b.url, items(0, 20, "WarmB"))]);

    // 1. The account's limit: one replica, then two, each with items nobody asked for before.
    out();
    out(
      `1. ${ITEMS} distinct uncached items at RELAY_UPSTREAM_RPS=${RPS}, sandbox throttling at ${RPS} requests in any 1 s`,
    );
    const one = await pacedPhase(sandbox, store, [{ replica: a, items: items(0, ITEMS, "One") }]);
    for (const line of describePhase("one replica (A)", one, owners)) out(line);
    const half = Math.floor(ITEMS / 2);
    const two = await pacedPhase(sandbox, store, [
      { replica: a, items: items(0, half, "Two") },
      { replica: b, items: items(half, ITEMS, "Two") },
    ]);
    for (const line of describePhase("two replicas (A + B, half each)", two, owners)) out(line);
    // The same items sent to both replicas at once (one shared workbook recalculated behind a load
    // balancer): the replica that loses each race joins the other's call and spends no send slot.
    const same = await pacedPhase(sandbox, store, [
      { replica: a, items: items(0, ITEMS, "Same") },
      { replica: b, items: items(0, ITEMS, "Same") },
    ]);
    for (const line of describePhase("two replicas (A + B, the same items to both)", same, owners)) out(line);
    const floor = ITEMS / RPS;
    const ratio = two.elapsed / one.elapsed;
    const phases = [one, two, same];
    const maxWindow = Math.max(...phases.map((r) => r.stats.maxPerSecond));
    const throttled = phases.reduce((n, r) => n + (r.stats.statuses["429"] ?? 0), 0);
    const twice = phases.reduce((n, r) => n + r.stats.duplicateCreates, 0);
    const sameOk =
      same.lines.length === 2 * ITEMS &&
      same.lines.every((l) => l.status === 200) &&
      same.stats.billing.reports === ITEMS &&
      same.ledger.filter((row) => row.state === "billed").length === ITEMS;
    const allOk = [one, two].every(
      (r) => r.lines.length === ITEMS && r.lines.every((l) => l.status === 200) && r.stats.billing.reports === ITEMS,
    );
    const ledgerOk = [one, two].every(
      (r) => r.ledger.length === ITEMS && r.ledger.every((row) => row.state === "billed"),
    );
    out(
      figure(
        "elapsed two ÷ one",
        ratio.toFixed(3),
        "0.90–1.10: the limit is the account's",
        ratio >= 0.9 && ratio <= 1.1,
      ),
    );
    out(
      figure(
        "two replicas, split ÷ floor",
        (two.elapsed / floor).toFixed(3),
        `≤ 1.10 (floor ${floor.toFixed(1)} s)`,
        two.elapsed / floor <= 1.1,
      ),
    );
    out(
      figure(
        "two replicas, same items ÷ floor",
        (same.elapsed / floor).toFixed(3),
        "≤ 1.15: a slot only for a request sent",
        same.elapsed / floor <= 1.15,
      ),
    );
    out(
      figure(
        "same items: each created once",
        sameOk ? "yes" : "no",
        "every line 200, one report and one billed row an item",
        sameOk,
      ),
    );
    out(figure("most requests in any 1 s", String(maxWindow), `≤ ${RPS}`, maxWindow <= RPS));
    out(figure("upstream 429s", String(throttled), "0", throttled === 0));
    out(figure("reports created twice", String(twice), "0", twice === 0));
    out(
      figure(
        "answered 200, billed once",
        allOk && ledgerOk ? "yes" : "no",
        "every item, and its ledger row billed",
        allOk && ledgerOk,
      ),
    );

    // 2. Cache hits: the items of the two-replica phase are all cached now.
    out();
    out(
      `2. cache hits (${ITEMS} cached items), closed loop with ${CONCURRENCY} callers in total over keep-alive connections, ${ROUNDS} rounds of ${SECONDS} s per configuration`,
    );
    const poolA = new Pool(a.url, { connections: CONCURRENCY, pipelining: 1 });
    const poolB = new Pool(b.url, { connections: CONCURRENCY, pipelining: 1 });
    pools.push(poolA, poolB);
    const bodies = Array.from({ length: ITEMS }, (_, n) => JSON.stringify(buyParams(n, "Two")));
    const body = (i: number) => bodies[i % ITEMS] as string;
    let redisPid: number | undefined;
    if (["127.0.0.1", "localhost", "[::1]"].includes(new URL(redisUrl).hostname)) {
      const r = new Redis(redisUrl, { lazyConnect: true });
      try {
        await r.connect();
        redisPid = Number(/process_id:(\d+)/.exec(await r.info("server"))?.[1]) || undefined;
      } catch {
        redisPid = undefined;
      } finally {
        r.disconnect();
      }
    }
    const procs: Processes = {
      replicas: [a.process.pid, b.process.pid],
      redis: redisPid,
      sandbox: sandbox.process.pid,
    };
    // What the machine is busy with before the load starts (other work on a shared host shows here).
    const idleBefore = sampleCpu(procs);
    await sleep(1000);
    const idle = coresUsed(idleBefore, sampleCpu(procs), 1);
    out(
      `  before the load: ${cores(idle.machineBusy)} of ${os.cpus().length} cores busy, ${cores(idle.rest)} of it with other processes`,
    );
    const arrivalsBefore = (await sandboxStats(sandbox.url)).arrivals;

    // Warm-up: each configuration for a while, nothing counted.
    await closedLoop([poolA], CONCURRENCY, 2, body);
    await closedLoop([poolA, poolB], CONCURRENCY, 2, body);

    const configs = { one: [poolA], two: [poolA, poolB] } as const;
    const totals = {
      one: { done: 0, bytes: 0, errors: 0, notCached: 0, seconds: 0 },
      two: { done: 0, bytes: 0, errors: 0, notCached: 0, seconds: 0 },
    };
    const usage = { one: [] as ReturnType<typeof coresUsed>[], two: [] as ReturnType<typeof coresUsed>[] };
    const costs: Record<"one" | "two", HitCost> = {
      one: { hits: 0, cpuSeconds: 0, redis: 0, postgres: 0 },
      two: { hits: 0, cpuSeconds: 0, redis: 0, postgres: 0 },
    };
    let firstError: string | undefined;
    const rounds: { ratio: number; quiet: boolean }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order (one, two, two, one, …) so a drift in the machine's load hits both alike;
      // each round's two measurements are back to back, so their ratio shares the same conditions.
      const order: ("one" | "two")[] = round % 2 === 0 ? ["one", "two"] : ["two", "one"];
      const rate: Record<string, number> = {};
      const others: Record<string, number | undefined> = {};
      for (const name of order) {
        const tripsBefore = roundTrips(tripFiles);
        const before = sampleCpu(procs);
        const r = await closedLoop([...configs[name]], CONCURRENCY, SECONDS, body);
        const after = sampleCpu(procs);
        const used = coresUsed(before, after, r.seconds);
        // The counts are written every 20 ms: wait for the last of this measurement's.
        await sleep(250);
        const tripsAfter = roundTrips(tripFiles);
        const cost = costs[name];
        cost.hits += r.done;
        // Both replicas in both configurations: the idle one's heartbeats are part of the deployment.
        cost.cpuSeconds += after.replicas.reduce<number>((s, x, i) => s + (x ?? NaN) - (before.replicas[i] ?? NaN), 0);
        cost.redis += tripsAfter.redis - tripsBefore.redis;
        cost.postgres += tripsAfter.postgres - tripsBefore.postgres;
        usage[name].push(used);
        const t = totals[name];
        t.done += r.done;
        t.bytes += r.bytes;
        t.errors += r.errors;
        t.notCached += r.notCached;
        t.seconds += r.seconds;
        firstError ??= r.firstError;
        rate[name] = r.done / r.seconds;
        others[name] = used.rest;
      }
      const ratio = (rate.two ?? NaN) / (rate.one ?? NaN);
      // Unknown (no /proc) counts as quiet: there is nothing to tell the rounds apart by.
      const quiet = [others.one, others.two].every((x) => x === undefined || x < QUIET_CORES);
      rounds.push({ ratio, quiet });
      out(
        `  round ${round + 1}: one replica ${(rate.one ?? NaN).toFixed(0)} req/s, two replicas ${(rate.two ?? NaN).toFixed(0)} req/s, two ÷ one ${ratio.toFixed(2)} (cores used by other processes: ${cores(others.one)} / ${cores(others.two)}${quiet ? "" : ", not quiet"})`,
      );
    }
    const arrivalsDuring = (await sandboxStats(sandbox.url)).arrivals - arrivalsBefore;
    const rps1 = totals.one.done / totals.one.seconds;
    const rps2 = totals.two.done / totals.two.seconds;
    // The verdict takes the median of the rounds' ratios: each pairs two measurements made back to
    // back, so work that other processes start or stop on the machine skews it least. Rounds during
    // which other work took a share of the cores are left out of it when any round was quiet.
    const quietRounds = rounds.filter((r) => r.quiet);
    const counted = quietRounds.length > 0 ? quietRounds : rounds;
    const sortedRatios = counted.map((r) => r.ratio).sort((x, y) => x - y);
    const scaling = sortedRatios[Math.floor(sortedRatios.length / 2)] as number;
    const basis =
      quietRounds.length === rounds.length
        ? `median of ${rounds.length} rounds`
        : quietRounds.length > 0
          ? `median of the ${quietRounds.length} quiet rounds of ${rounds.length}`
          : `median of ${rounds.length} rounds, none quiet`;
    const mean = (xs: (number | undefined)[]) =>
      xs.some((x) => x === undefined) || xs.length === 0
        ? undefined
        : (xs as number[]).reduce((s, x) => s + x, 0) / xs.length;
    const cpuLine = (name: "one" | "two") => {
      const u = usage[name];
      const rA = mean(u.map((x) => x.replicas[0]));
      const rB = mean(u.map((x) => x.replicas[1]));
      return `replica A ${cores(rA)}, replica B ${cores(rB)}, Redis ${cores(mean(u.map((x) => x.redis)))}, load generator ${cores(mean(u.map((x) => x.self)))}, interrupts ${cores(mean(u.map((x) => x.interrupts)))}, other processes ${cores(mean(u.map((x) => x.rest)))}; whole machine ${cores(mean(u.map((x) => x.machineBusy)))} of ${os.cpus().length}`;
    };
    out(
      `  one replica   ${rps1.toFixed(0).padStart(6)} req/s (${totals.one.done} answers, ${totals.one.errors} errors)`,
    );
    out(`    cores used: ${cpuLine("one")}`);
    out(
      `  two replicas  ${rps2.toFixed(0).padStart(6)} req/s (${totals.two.done} answers, ${totals.two.errors} errors)`,
    );
    out(`    cores used: ${cpuLine("two")}`);
    if (firstError) out(`  first error: ${firstError}`);
    const clean =
      totals.one.errors + totals.two.errors === 0 &&
      totals.one.notCached + totals.two.notCached === 0 &&
      arrivalsDuring === 0;
    const bytes = (totals.one.bytes + totals.two.bytes) / (totals.one.done + totals.two.done);
    out(
      figure(
        "all cache hits, no errors",
        clean ? "yes" : "no",
        `checked; ${arrivalsDuring} requests reached the sandbox; ${(bytes / 1024).toFixed(1)} KiB an answer`,
        clean,
      ),
    );
    out(
      figure(
        "throughput two ÷ one",
        scaling.toFixed(2),
        `≥ 1.6 (${basis}; all rounds' totals give ${(rps2 / rps1).toFixed(2)})`,
        scaling >= 1.6 && clean,
      ),
    );

    printHitCosts(costs);

    // What the machine allowed: a replica's JavaScript runs on one thread (about one core), and two
    // replicas share the machine's cores with the load generator and Redis.
    const one1 = mean(usage.one.map((x) => x.replicas[0]));
    const replicasTwo = mean(usage.two.map((x) => (x.replicas[0] ?? NaN) + (x.replicas[1] ?? NaN)));
    const allTwo = mean(
      usage.two.map((x) => (x.replicas[0] ?? NaN) + (x.replicas[1] ?? NaN) + (x.redis ?? 0) + x.self),
    );
    if (one1 !== undefined && replicasTwo !== undefined && allTwo !== undefined && Number.isFinite(replicasTwo)) {
      const perCoreOne = rps1 / one1;
      const perCoreTwo = rps2 / replicasTwo;
      const boundOne = perCoreOne;
      const boundTwo = os.cpus().length / (allTwo / rps2);
      out(
        `  answers per core the replicas used: one ${perCoreOne.toFixed(0)}, two ${perCoreTwo.toFixed(0)} (two ÷ one ${(perCoreTwo / perCoreOne).toFixed(2)})`,
      );
      out(
        `  estimate for this machine with nothing else running: one replica ≈ 1 core ≈ ${boundOne.toFixed(0)} req/s; two replicas, the load generator and Redis at ${((allTwo / rps2) * 1e6).toFixed(0)} µs of CPU an answer on ${os.cpus().length} cores ≈ ${boundTwo.toFixed(0)} req/s; two ÷ one ≈ ${(boundTwo / boundOne).toFixed(2)} at most`,
      );
    }

    await pacersAlone(redisUrl, namespace);
    out();
  } finally {
    await cleanup();
  }
}

/**
 * Section 4: the pacers alone, in this process, with nothing between a grant and its send: how close
 * to the rule's pace 250 sends go through the local pacer and through two Redis pacers (the tests
 * hold them to the rule, not to its pace), and whether a Redis slot's lifetime costs throughput.
 */
async function pacersAlone(redisUrl: string, namespace: string): Promise<void> {
  const [{ LocalPacer, pacingRule }, { RedisPacer }, { redisClient }] = await Promise.all([
    relayParts.pacing(),
    relayParts.sharedPacing(),
    relayParts.sharedClients(),
  ]);
  const rule = pacingRule(RPS);
  const spacing = rule.windowMs / rule.limit;
  const SENDS = 250;
  out();
  out(
    `4. the pacers alone: ${SENDS} sends queued at once at ${RPS} a second (the rule: ${rule.limit} per ${rule.windowMs} ms)`,
  );
  const paceOf = async (pacers: Pacer[]) => {
    const start = performance.now();
    const times = await grantTimes(pacers, SENDS);
    return { ratio: (performance.now() - start) / ((SENDS - 1) * spacing), most: maxInWindow(times, 1000) };
  };
  const local = new LocalPacer(rule);
  const alone = await paceOf([local]);
  await local.close();
  const clients = [redisClient(redisUrl, "str-bench-pacer"), redisClient(redisUrl, "str-bench-pacer")];
  try {
    await Promise.all(clients.map((c) => new Promise((resolve) => c.once("ready", resolve))));
    const make = (tag: string) => clients.map((c) => new RedisPacer(c, rule, `${namespace}:${tag}`));
    const paced = make("pace");
    const shared = await paceOf(paced);
    await Promise.all(paced.map((p) => p.close()));
    // Each caller releases its slot as soon as it is granted: each send should go one window after
    // the one 100 before it, not a lifetime later (a release counted from the latest write instead).
    const released = make("lifetime");
    const sends: number[] = [];
    await Promise.all(
      Array.from({ length: 501 }, (_, i) =>
        (released[i % 2] as RedisPacer).acquire().then((slot) => {
          slot.release();
          sends.push(performance.now());
        }),
      ),
    );
    await Promise.all(released.map((p) => p.close()));
    sends.sort((a, b) => a - b);
    // The median gap, so that a moment the machine stalls (it delays the few sends around it) says nothing.
    const gaps = sends
      .slice(rule.limit)
      .map((t, i) => t - (sends[i] as number))
      .sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] as number;
    const lifetime = (released[0] as RedisPacer).slotLifetimeMs;
    out(`  most sends in any 1 s: local ${alone.most}, two Redis pacers ${shared.most}`);
    out(figure("local pacer: time ÷ rule's", alone.ratio.toFixed(3), "≤ 1.10", alone.ratio <= 1.1));
    out(figure("two Redis: time ÷ rule's", shared.ratio.toFixed(3), "≤ 1.10", shared.ratio <= 1.1));
    out(
      figure(
        "median gap, 100th send after",
        `${median.toFixed(0)} ms`,
        `< ${rule.windowMs + lifetime / 2} ms: a lifetime costs nothing`,
        median < rule.windowMs + lifetime / 2,
      ),
    );
  } finally {
    for (const c of clients) c.disconnect();
  }
}

/** Section 3: CPU per 1,000 cache hits and round trips per hit, one replica against two. */
function printHitCosts(costs: Record<"one" | "two", HitCost>): void {
  const per = (c: HitCost) => ({
    cpuMs: (c.cpuSeconds / c.hits) * 1e6,
    redis: c.redis / c.hits,
    postgres: c.postgres / c.hits,
  });
  const one = per(costs.one);
  const two = per(costs.two);
  out();
  out("3. what a cache hit costs, from the rounds above (both replicas counted in both configurations)");
  for (const [label, c] of [
    ["one replica ", one],
    ["two replicas", two],
  ] as const) {
    const cpu = Number.isFinite(c.cpuMs) ? `${c.cpuMs.toFixed(0)} ms` : "n/a";
    out(
      `  ${label}  CPU ${cpu} per 1,000 hits; round trips per hit: Redis ${c.redis.toFixed(3)}, Postgres ${c.postgres.toFixed(3)}`,
    );
  }
  const tripsOne = one.redis + one.postgres;
  const tripsTwo = two.redis + two.postgres;
  out(
    figure(
      "round trips per hit two − one",
      (tripsTwo - tripsOne).toFixed(3),
      "≤ 0.05: a second replica adds none per hit",
      tripsTwo - tripsOne <= 0.05,
    ),
  );
  const cpuRatio = two.cpuMs / one.cpuMs;
  out(
    figure(
      "CPU per hit two ÷ one",
      Number.isFinite(cpuRatio) ? cpuRatio.toFixed(2) : "n/a",
      "≤ 1.25 (/proc; n/a elsewhere)",
      Number.isFinite(cpuRatio) && cpuRatio <= 1.25,
    ),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
