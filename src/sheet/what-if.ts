import { WhatIfInputs } from "../model";

/*
 * What a what-if changed, in words, for the first row of its card ("What-if … Changed: interest
 * rate 7.5%"): a recomputed card must never pass for the analysis the service made.
 */

const SCENARIO_WORDS: Readonly<Record<string, string>> = { p25: "p25 (bear)", p50: "p50 (base)", p75: "p75 (bull)" };

const money = (usd: number) => `$${usd.toLocaleString("en-US", { maximumFractionDigits: 2 })}`;
const percent = (value: number) => `${Number(value.toPrecision(12))}%`;

/** The inputs a what-if was given, in the order of STR.WHATIF's arguments; none → []. */
export function whatIfChanges(inputs: WhatIfInputs): string[] {
  const changes: string[] = [];
  const add = (value: number | string | undefined, say: (v: never) => string) => {
    if (value !== undefined) changes.push(say(value as never));
  };
  add(inputs.purchasePriceUSD, (v: number) => `purchase price ${money(v)}`);
  add(inputs.downPaymentPercentage, (v: number) => `down payment ${percent(v)}`);
  add(inputs.interestRatePercentage, (v: number) => `interest rate ${percent(v)}`);
  add(inputs.mortgageLength, (v: number) => `mortgage ${v} years`);
  add(inputs.scenario, (v: string) => `revenue at ${SCENARIO_WORDS[v] ?? v}`);
  add(inputs.yearOneRevenueUSD, (v: number) => `revenue ${money(v)} a year`);
  add(inputs.occupancy, (v: number) => `occupancy ${percent(v * 100)}`);
  add(inputs.ratePerNightUSD, (v: number) => `nightly rate ${money(v)}`);
  add(inputs.monthlyRentUSD, (v: number) => `rent ${money(v)} a month`);
  add(inputs.cohostCommissionPercentage, (v: number) => `commission ${percent(v)}`);
  add(inputs.monthlyExpensesUSD, (v: number) => `expenses ${money(v)} a month`);
  return changes;
}
