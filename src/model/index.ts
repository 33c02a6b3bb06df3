/*
 * The financial model an investor reads beside the service's figures: mortgage, arbitrage and
 * co-hosting years (finance.ts), what-ifs and the investor metrics (whatif.ts), the highest price
 * that still meets a target (max-bid.ts, max-bid-rule.ts), a hold projected year by year with its
 * IRR (projection.ts, projection-months.ts, irr.ts). It reads the contract's analysis schema; no
 * I/O, no Node modules: it runs in the relay, the CLI and Excel alike.
 */
export * from "./finance";
export * from "./whatif";
export * from "./max-bid";
export * from "./max-bid-rule";
export * from "./irr";
export * from "./projection";
export * from "./projection-months";
