import { BENCH_TOKEN, startRelay, verdict } from "./support";
import { installCustomFunctionsRuntime } from "../test/support/custom-functions";

/**
 * npm run bench:sensitivity — STR.SENSITIVITY over a 100 × 100 grid (price × interest rate,
 * cash-on-cash) from an analysis the session already holds: the time to compute it (target under
 * 100 ms) and the HTTP requests it makes (target 0). The functions run in Node with a stand-in for
 * Excel's CustomFunctions runtime; the relay is its own process.
 */
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
    // Count what the functions send: wrap the global fetch the client uses.
    globalThis.fetch = counting;
    const card = await STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8);
    const id = card.find((row) => row[0] === "Analysis id")?.[1];
    const prices = Array.from({ length: 100 }, (_, i) => [300000 + i * 5000]);
    const rates = [Array.from({ length: 100 }, (_, i) => Math.round((3 + i * 0.08) * 100) / 100)];
    await STR.sensitivity(
      id,
      "purchasePrice",
      prices.slice(0, 5),
      "interestRatePct",
      [rates[0]!.slice(0, 5)],
      "yearOneCashOnCashPercentage",
    ); // warm-up
    const before = requests;
    const times: number[] = [];
    let grid: unknown[][] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      grid = await STR.sensitivity(
        id,
        "purchasePrice",
        prices,
        "interestRatePct",
        rates,
        "yearOneCashOnCashPercentage",
      );
      times.push(performance.now() - t0);
    }
    const made = requests - before;
    globalThis.fetch = original;
    const median = [...times].sort((a, b) => a - b)[2] as number;
    process.stdout.write(
      [
        `bench:sensitivity — a ${grid.length - 1} × ${(grid[0]?.length ?? 1) - 1} grid of cash-on-cash by price × interest rate`,
        `  time (median of 5) ${median.toFixed(1)} ms (target < 100)  ${verdict(median < 100)}`,
        `  HTTP requests      ${made} (target 0)  ${verdict(made === 0)}`,
        "",
      ].join("\n"),
    );
  } finally {
    await relay.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
