/** Rounds half away from zero to `decimals` places (money to cents, rates to basis points). */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.sign(value) * (Math.round(Math.abs(value) * f) / f);
}
