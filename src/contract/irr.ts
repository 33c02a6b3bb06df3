/**
 * Net present value and internal rate of return of yearly cash flows, flows[0] now (the cash put
 * in, negative) and flows[t] at the end of year t. The IRR is found by bracketing and bisection
 * rather than Newton's method, which can jump out of range or cycle on flows that change sign more
 * than once.
 */

/** Σ flows[t] ÷ (1 + rate)^t. */
export function npv(rate: number, flows: readonly number[]): number {
  const factor = 1 + rate;
  let sum = 0;
  for (let t = flows.length - 1; t >= 0; t--) sum = sum / factor + (flows[t] as number);
  return sum;
}

/** Growth factors 1 + r searched: r from −99.9 % to +99,900 % a year, on a log scale. */
const GRID = Array.from({ length: 601 }, (_, k) => 10 ** (-3 + k / 100));

/**
 * The rate at which the flows' NPV is zero, to the last bit of a double; undefined when there is
 * none (the flows never change sign, or the sale does not repay what was put in at any rate). Flows
 * that change sign more than once may have several: the one nearest 0 % is given.
 */
export function irr(flows: readonly number[]): number | undefined {
  const at = (factor: number) => npv(factor - 1, flows);
  let best: number | undefined;
  let previous = at(GRID[0] as number);
  for (let k = 1; k < GRID.length; k++) {
    const factor = GRID[k] as number;
    const value = at(factor);
    if (previous === 0 || Math.sign(value) !== Math.sign(previous)) {
      const root = previous === 0 ? (GRID[k - 1] as number) - 1 : bisect(at, GRID[k - 1] as number, factor) - 1;
      if (best === undefined || Math.abs(root) < Math.abs(best)) best = root;
    }
    previous = value;
  }
  return best;
}

/** Halves [lo, hi], whose ends' signs differ, until no double lies between them. */
function bisect(f: (x: number) => number, lo: number, hi: number): number {
  const loSign = Math.sign(f(lo));
  for (;;) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) return Math.abs(f(lo)) <= Math.abs(f(hi)) ? lo : hi;
    const value = f(mid);
    if (value === 0) return mid;
    if (Math.sign(value) === loSign) lo = mid;
    else hi = mid;
  }
}
