import { BENCH_TOKEN, startRelay, verdict } from "./support";
import { installCustomFunctionsRuntime } from "../test/support/custom-functions";

/**
 * npm run bench:decisions — STR.MAXBID over 1,000 analyses the session already holds, and
 * STR.PROJECTION of 30 years over the same 1,000: for each, the time for all 1,000 calls, issued at
 * once as a recalculation issues them, to settle (target under 1 s) and the HTTP requests they make
 * (target 0). The functions run in Node with a stand-in for Excel's CustomFunctions runtime; the
 * relay is its own process, on its sandbox.
 */
const N = Number(process.env.BENCH_ITEMS ?? 1000);
const ROUNDS = 5;

// The functions run in Node: Excel's CustomFunctions globals come from the tests' stand-in.
installCustomFunctionsRuntime();

async function main(): Promise<void> {
  let requests = 0;
  const original = globalThis.fetch;
  const counting: typeof fetch = (input, init) => {
    requests++;
    return original(input, init);
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const STR = require("../functions/functions") as typeof import("../functions/functions");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { addinConnection } = require("../src/client") as typeof import("../src/client");
  const relay = await startRelay({ SANDBOX_TIME_SCALE: "0" });
  try {
    await addinConnection().update({ relayUrl: relay.url, token: BENCH_TOKEN });
    // 1,000 purchases, one screening row each (its analysis id): the session keeps their analyses.
    const rows = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        STR.buy(
          [[`${i} Decision Ave, Austin TX`]],
          300000 + 500 * i,
          1 + (i % 5),
          1 + (i % 3),
          2 + (i % 7),
          undefined,
          [["_id"]],
        ),
      ),
    );
    const ids = rows.map((row) => row[0]?.[0]);
    globalThis.fetch = counting;
    const measure = async (call: (id: unknown) => Promise<unknown[][]>) => {
      await Promise.all(ids.slice(0, 50).map(call)); // warm-up
      const before = requests;
      const times: number[] = [];
      let settled: PromiseSettledResult<unknown[][]>[] = [];
      for (let k = 0; k < ROUNDS; k++) {
        const t0 = performance.now();
        settled = await Promise.allSettled(ids.map(call));
        times.push(performance.now() - t0);
      }
      const median = [...times].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
      const answered = settled.filter((s) => s.status === "fulfilled").length;
      return { median, made: requests - before, answered, settled };
    };
    const bids = await measure((id) => STR.maxbid(id, "cash-on-cash", "6%"));
    const projections = await measure((id) => STR.projection(id, 30));
    globalThis.fetch = original;
    // A bid, or #N/A when no price gives 6 %: either is an answer; anything else is a failure.
    const unreachable = bids.settled.filter(
      (s) => s.status === "rejected" && /STR_TARGET_UNREACHABLE/.test(String((s.reason as Error).message)),
    ).length;
    const line = (name: string, r: { median: number; made: number; answered: number }, extra = "") =>
      [
        `  ${name}: ${N} calls in ${r.median.toFixed(1)} ms (median of ${ROUNDS}; target < 1000)  ${verdict(r.median < 1000)}`,
        `    HTTP requests ${r.made} (target 0)  ${verdict(r.made === 0)}; answered ${r.answered} of ${N}${extra}`,
      ].join("\n");
    process.stdout.write(
      [
        `bench:decisions — ${N} analyses held by the session`,
        line("STR.MAXBID cash-on-cash ≥ 6 %", bids, `, #N/A (no price meets 6 %) ${unreachable}`),
        line("STR.PROJECTION 30 years", projections),
        "",
      ].join("\n"),
    );
    if (bids.answered + unreachable < N || projections.answered < N) process.exitCode = 1;
  } finally {
    await relay.stop();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
