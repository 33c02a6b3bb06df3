import { Pool } from "undici";
import {
  BENCH_KEY,
  BENCH_TOKEN,
  buyParams,
  peakRssMiB,
  startRelay,
  startSandbox,
  Latencies,
  pooled,
  steadyLoad,
  throughput,
  verdict,
} from "./support";

/**
 * npm run bench:relay — the relay against the sandbox, both as separate processes on loopback.
 *   1. A batch of 2,000 distinct items at the service's 100 req/s: elapsed ÷ the ideal 20 s
 *      (target ≤ 1.10), 429s from the service (target 0), reports created twice (target 0), and
 *      the relay's peak RSS.
 *   2. Cache hits through the relay vs the same calls straight to a sandbox, at 500 req/s in
 *      alternate one-second slices: p50/p99 latency (target: the relay adds ≤ 1 ms p50 and ≤ 5 ms
 *      p99) and closed-loop throughput.
 *   3. The same batch again, every item cached: when its first line comes, as a share of the whole
 *      batch (target ≤ 0.25: lines flow as they are made, not after the last), and the slowest
 *      /healthz another caller sees meanwhile, against /healthz on an idle relay.
 */
const ITEMS = Number(process.env.BENCH_ITEMS ?? 2000);
const RPS = 100;

async function main(): Promise<void> {
  // The service as the relay sees it: throttled at 100 req/s, reports taking 0.2–0.6 s (2 % of the live 10–30 s).
  const upstream = await startSandbox({
    SANDBOX_TIME_SCALE: "0.02",
    SANDBOX_API_KEYS: BENCH_KEY,
    SANDBOX_AI_FAILURE_RATE: "0",
    SANDBOX_AI_TIMEOUT_RATE: "0",
  });
  // A second sandbox to call directly for the baseline: instant and unthrottled, like a cache hit.
  const direct = await startSandbox({
    SANDBOX_TIME_SCALE: "0",
    SANDBOX_API_KEYS: BENCH_KEY,
    SANDBOX_RATE_LIMIT: "100000",
  });
  const relay = await startRelay({
    STR_API_KEY: BENCH_KEY,
    STR_API_BASE_URL: upstream.url,
    RELAY_UPSTREAM_RPS: String(RPS),
  });
  const relayPool = new Pool(relay.url, { connections: 64 });
  const directPool = new Pool(direct.url, { connections: 64 });
  const auth = { authorization: `Bearer ${BENCH_TOKEN}` };
  try {
    process.stdout.write(`bench:relay — ${ITEMS} distinct items at ${RPS} req/s (ideal ${ITEMS / RPS} s)\n`);
    const items = Array.from({ length: ITEMS }, (_, n) => ({ strategy: "buy", params: buyParams(n) }));
    const start = performance.now();
    const res = await relayPool.request({
      method: "POST",
      path: "/v1/batch",
      body: JSON.stringify({ items }),
      headers: { ...auth, "content-type": "application/json" },
      bodyTimeout: 0,
      headersTimeout: 0,
    });
    let lines = 0;
    let ok = 0;
    let rest = "";
    for await (const chunk of res.body) {
      rest += chunk.toString();
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts.filter(Boolean)) {
        lines++;
        if ((JSON.parse(line) as { status: number }).status === 200) ok++;
      }
    }
    const elapsed = (performance.now() - start) / 1000;
    const ratio = elapsed / (ITEMS / RPS);
    const stats = (await (await fetch(`${upstream.url}/__sandbox/stats`)).json()) as {
      statuses: Record<string, number>;
      duplicateCreates: number;
      maxPerSecond: number;
    };
    const throttled = stats.statuses["429"] ?? 0;
    const rss = peakRssMiB(relay.process.pid as number);
    process.stdout.write(
      [
        `  answered ${lines} lines, ${ok} ok, in ${elapsed.toFixed(2)} s`,
        `  elapsed ÷ ideal          ${ratio.toFixed(3)}   (target ≤ 1.10)  ${verdict(ratio <= 1.1 && ok === ITEMS)}`,
        `  upstream 429s            ${throttled}       (target 0)       ${verdict(throttled === 0)}`,
        `  reports created twice    ${stats.duplicateCreates}       (target 0)       ${verdict(stats.duplicateCreates === 0)}`,
        `  most requests in any 1 s at the service: ${stats.maxPerSecond} (limit ${RPS})`,
        `  relay peak RSS           ${rss ?? "n/a"} MiB`,
        "",
      ].join("\n"),
    );

    // 2. Cache hits: the first 200 items are cached now.
    const cachedBody = (i: number) => JSON.stringify(buyParams(i % 200));
    const viaRelay = (i: number) => ({ path: "/v1/external/analysis/create/buy", body: cachedBody(i), headers: auth });
    const straight = (i: number) => ({
      path: "/v1/external/analysis/create/buy",
      body: cachedBody(i),
      headers: { "x-bnbcalc-api-key": BENCH_KEY },
    });
    await steadyLoad(relayPool, 200, 1, viaRelay); // warm-up
    await steadyLoad(directPool, 200, 1, straight);
    // Six one-second slices of each, alternated: a stall of the machine, or of this process's own
    // garbage collector, falls on both sides alike rather than on whichever ran at the time.
    const relaySlices: Latencies[] = [];
    const straightSlices: Latencies[] = [];
    for (let slice = 0; slice < 6; slice++) {
      relaySlices.push(await steadyLoad(relayPool, 500, 1, viaRelay));
      straightSlices.push(await steadyLoad(directPool, 500, 1, straight));
    }
    const r = pooled(relaySlices);
    const d = pooled(straightSlices);
    const addedP50 = r.p50 - d.p50;
    const addedP99 = r.p99 - d.p99;
    const relayRps = await throughput(relayPool, 16, 3, viaRelay);
    const directRps = await throughput(directPool, 16, 3, straight);
    process.stdout.write(
      [
        `cache hits at 500 req/s for 6 s (${r.count} through the relay, ${d.count} straight to a sandbox; errors ${r.errors}/${d.errors})`,
        `  p50  relay ${r.p50.toFixed(2)} ms   straight ${d.p50.toFixed(2)} ms   added ${addedP50.toFixed(2)} ms (target ≤ 1)  ${verdict(addedP50 <= 1)}`,
        `  p99  relay ${r.p99.toFixed(2)} ms   straight ${d.p99.toFixed(2)} ms   added ${addedP99.toFixed(2)} ms (target ≤ 5)  ${verdict(addedP99 <= 5)}`,
        `  closed-loop throughput, 16 callers: relay ${relayRps.toFixed(0)} req/s, straight ${directRps.toFixed(0)} req/s (ratio ${(relayRps / directRps).toFixed(2)})`,
        `  relay peak RSS so far    ${peakRssMiB(relay.process.pid as number) ?? "n/a"} MiB`,
        "",
      ].join("\n"),
    );

    // 3. A batch of cached items: answered with no I/O to wait on, it must not hold the relay.
    const health = async () => {
      const t = performance.now();
      await (await relayPool.request({ method: "GET", path: "/healthz" })).body.text();
      return performance.now() - t;
    };
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(await health());
    idle.sort((a, b) => a - b);
    let slowest = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        slowest = Math.max(slowest, await health());
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const cachedStart = performance.now();
    let firstLine = 0;
    const again = await relayPool.request({
      method: "POST",
      path: "/v1/batch",
      body: JSON.stringify({ items, maxComparables: 0 }),
      headers: { ...auth, "content-type": "application/json" },
      bodyTimeout: 0,
      headersTimeout: 0,
    });
    for await (const chunk of again.body)
      if (!firstLine && chunk.length > 0) firstLine = performance.now() - cachedStart;
    const whole = performance.now() - cachedStart;
    probing = false;
    await probe;
    const share = firstLine / whole;
    process.stdout.write(
      [
        `the same ${ITEMS} items again, all cached, in one batch`,
        `  first line after ${firstLine.toFixed(0)} ms of ${whole.toFixed(0)} ms: share ${share.toFixed(2)}   (target ≤ 0.25)  ${verdict(share <= 0.25)}`,
        `  slowest /healthz meanwhile ${slowest.toFixed(1)} ms   (idle: median ${(idle[10] as number).toFixed(1)} ms)`,
        "",
      ].join("\n"),
    );
  } finally {
    await relayPool.close();
    await directPool.close();
    await relay.stop();
    await upstream.stop();
    await direct.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
