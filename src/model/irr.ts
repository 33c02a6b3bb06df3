/*
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
const LOWEST = GRID[0] as number;
const HIGHEST = GRID[GRID.length - 1] as number;

/**
 * The rate at which the flows' NPV is zero, to the last bit of a double; undefined when there is
 * none in the range searched (the flows never change sign, or the sale does not repay what was put
 * in at any rate). Flows that change sign more than once may have several: the one nearest 0 %.
 */
export function irr(flows: readonly number[]): number | undefined {
  const at = (factor: number) => npv(factor - 1, flows);
  // One change of sign (money in, then money out): one root at most (Descartes' rule of signs), so
  // the whole range is one bracket.
  if (signChanges(flows) === 1)
    return Math.sign(at(LOWEST)) === Math.sign(at(HIGHEST)) ? undefined : bisect(at, LOWEST, HIGHEST) - 1;
  let best: number | undefined;
  let previous = at(LOWEST);
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

function signChanges(flows: readonly number[]): number {
  let changes = 0;
  let sign = 0;
  for (const flow of flows) {
    const s = Math.sign(flow);
    if (s === 0) continue;
    if (sign !== 0 && s !== sign) changes++;
    sign = s;
  }
  return changes;
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
