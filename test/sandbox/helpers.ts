import { OPERATION_PATHS, Operation } from "../../src/contract";
import { SandboxOptionsInput } from "../../src/sandbox/sandbox-options";
import { Sandbox, buildSandbox } from "../../src/sandbox/sandbox-server";
import { Answer, answerOf } from "../support/inject";

/** Shared set-up of the sandbox suites: an instant sandbox, keys, bodies and an inject wrapper. */

export const KEY = "sk_test_alpha_0001";
export const OTHER_KEY = "sk_test_bravo_0002";

export const AUSTIN = "12 Main St, Austin, TX 78701";
export const PARIS = "10 Rue de Rivoli, Paris, France";

export const BODIES = {
  buy: { fullAddress: AUSTIN, purchasePriceUSD: 450_000, bedrooms: 2, bathrooms: 2, accomodates: 6 },
  arb: { fullAddress: AUSTIN, monthlyRentUSD: 2_500, bedrooms: 2, bathrooms: 1, accomodates: 4 },
  owned: {
    fullAddress: AUSTIN,
    purchasePriceUSD: 500_000,
    downPaymentPercentage: 25,
    interestRatePercentage: 4,
    mortgageLength: 30,
    yearsRemainingOnMortgage: 20,
    bedrooms: 3,
    bathrooms: 2,
    accomodates: 8,
  },
  cohost: { fullAddress: AUSTIN, bedrooms: 1, bathrooms: 1, accomodates: 2 },
} as const;

export type CreateOp = keyof typeof BODIES;
export const CREATE_OPS = Object.keys(BODIES) as CreateOp[];

/** An instant sandbox whose AI steps always complete unless a test says otherwise. */
export function makeSandbox(input: SandboxOptionsInput = {}): Sandbox {
  return buildSandbox({ timeScale: 0, ...input, faults: { aiFailureRate: 0, aiTimeoutRate: 0, ...input.faults } });
}

export type { Answer } from "../support/inject";

/** POSTs `body` to `op` with `key` (null: no key header at all). */
export async function call(sandbox: Sandbox, op: Operation, body: unknown, key: string | null = KEY): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers["x-bnbcalc-api-key"] = key;
  return answerOf(
    await sandbox.app.inject({ method: "POST", url: OPERATION_PATHS[op], headers, payload: JSON.stringify(body) }),
  );
}

/** Creates an analysis and returns its data, failing the test on anything but 200. */
export async function create(
  sandbox: Sandbox,
  op: CreateOp,
  patch: Record<string, unknown> = {},
  key = KEY,
): Promise<any> {
  const r = await call(sandbox, op, { ...BODIES[op], ...patch }, key);
  if (r.status !== 200) throw new Error(`create ${op} answered ${r.status}: ${r.text}`);
  return r.json.data;
}

export function billedCents(sandbox: Sandbox, key?: string): number {
  return sandbox.state.totals(key).cents;
}

/** Spreadsheet PERCENTILE.INC: linear interpolation between closest ranks. */
export function percentileInc(values: readonly number[], fraction: number): number {
  const s = [...values].sort((a, b) => a - b);
  const rank = fraction * (s.length - 1);
  const lo = Math.floor(rank);
  const below = s[lo] as number;
  const above = s[Math.min(lo + 1, s.length - 1)] as number;
  return below + (rank - lo) * (above - below);
}

export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** |actual − expected| ≤ tolerance, with a message that shows both. */
export function expectNear(actual: unknown, expected: number, tolerance: number, what = "value"): void {
  if (typeof actual !== "number" || !(Math.abs(actual - expected) <= tolerance)) {
    throw new Error(`${what}: expected ${expected} ± ${tolerance}, got ${String(actual)}`);
  }
}
