import { PERCENTILE_KEYS, PercentileKey } from "./analysis";
import { round } from "./numbers";

/*
 * Which unit a value was sent in, decided value by value from what the field means: an occupancy is
 * 0–1 as a fraction or 0–100 as a percent; an interest rate is 0–20 %; a return is checked against
 * the figures it is computed from. A whole object is never converted because of one value in it
 * (one p90 of 1.05 must not turn a median of 55 % into 0.55 %). A value no reading makes plausible
 * is dropped and said, so a cell is blank with a reason instead of 100× off.
 */

/** A value as read: the number in the target unit, or undefined; `note` when it was converted or dropped. */
export interface Reading {
  value: number | undefined;
  note?: string;
}

/** How a number could have been meant, for a field whose unit is a share of a whole. */
type ShareUnit = "fraction" | "percent" | "none";

/** Percent text for a note: 55 → "55 %", 8.583 → "8.58 %". */
export function percentText(percent: number): string {
  return `${round(percent, 2)} %`;
}

/**
 * An occupancy as sent: at most 1 is a fraction (a true occupancy of 1 % or less is not plausible),
 * above 1 and up to 100 a percent, anything else (negative, over 100 %) no occupancy at all.
 */
function occupancyUnit(value: number): ShareUnit {
  if (value < 0 || value > 100) return "none";
  return value <= 1 ? "fraction" : "percent";
}

const asFraction = (value: number, unit: ShareUnit) => (unit === "percent" ? value / 100 : value);

/** One occupancy field (a percent field of the spec), read as a percent. */
export function readOccupancyPercent(name: string, value: number): Reading {
  const unit = occupancyUnit(value);
  if (unit === "percent") return { value };
  if (unit === "none") return { value: undefined, note: outside(name, value, "an occupancy of 0–100 %") };
  const percent = round(value * 100, 4);
  return { value: percent, note: `${name} given as a fraction (${value}), read as ${percentText(percent)}` };
}

/**
 * An occupancy percentile set (p25…p90, avg) read as fractions of 1, value by value: each value by
 * its own unit, then checked against its siblings. A value whose unit is not the set's usual one is
 * kept only where it sits among the others (p25 ≤ p50 ≤ p75 ≤ p90); else it is dropped, as is a
 * value no unit makes an occupancy.
 */
export function readOccupancyPercentiles(
  name: string,
  values: Partial<Record<PercentileKey, number | undefined>>,
  /** The unit the field is meant to hold: a note says where another was read. */
  meant: "fraction" | "percent" = "fraction",
): { values: Partial<Record<PercentileKey, number>>; notes: string[] } {
  const notes: string[] = [];
  const units = new Map<PercentileKey, ShareUnit>();
  for (const key of PERCENTILE_KEYS) {
    const v = values[key];
    if (typeof v === "number") units.set(key, occupancyUnit(v));
  }
  const count = (u: ShareUnit) => [...units.values()].filter((x) => x === u).length;
  const usual: ShareUnit =
    count("fraction") > count("percent") ? "fraction" : count("percent") > count("fraction") ? "percent" : "none";
  const read = new Map<PercentileKey, number>();
  for (const [key, unit] of units) {
    if (unit !== "none" && (usual === "none" || unit === usual)) read.set(key, asFraction(values[key] as number, unit));
  }
  const out: Partial<Record<PercentileKey, number>> = {};
  const converted: string[] = [];
  for (const [key, unit] of units) {
    const raw = values[key] as number;
    if (unit === "none") {
      notes.push(outside(`${name} ${key}`, raw, "an occupancy (0–1 or 0–100 %)"));
      continue;
    }
    const fraction = round(asFraction(raw, unit), 6);
    if (usual !== "none" && unit !== usual && !fitsAmong(key, fraction, read)) {
      notes.push(
        `${name} ${key} (${raw}) fits neither as a fraction nor as a percent beside the other percentiles; left blank`,
      );
      continue;
    }
    out[key] = fraction;
    if (unit !== meant) converted.push(`${key} ${percentText(fraction * 100)}`);
  }
  const other = meant === "fraction" ? "in percent" : "as fractions";
  if (converted.length > 0) notes.push(`${name} given ${other}, read as ${converted.join(", ")}`);
  return { values: out, notes };
}

/** Whether `fraction` at `key` keeps the percentiles in order beside the siblings read in the usual unit. */
function fitsAmong(key: PercentileKey, fraction: number, siblings: ReadonlyMap<PercentileKey, number>): boolean {
  const order = PERCENTILE_KEYS.filter((k) => k !== "avg");
  const others = [...siblings].filter(([k]) => k !== key);
  if (others.length === 0) return true;
  if (key === "avg") {
    // A mean lies among the values; the percentiles bound most of them.
    const all = others.map(([, v]) => v);
    return fraction >= Math.min(...all) / 2 && fraction <= Math.min(1, Math.max(...all) * 1.5);
  }
  const at = order.indexOf(key);
  return others.every(([k, v]) => {
    if (k === "avg") return true;
    const i = order.indexOf(k);
    return i < at ? v <= fraction : v >= fraction;
  });
}

/** How a percent field of the spec may be read: where a percent is plausible, where a fraction. */
interface PercentRule {
  /** Plausible as a percent: [min, max]. */
  percent: readonly [number, number];
  /** Plausible as a fraction of 1 (then × 100): [min, max], exclusive of 0 (0 is 0 in both). */
  fraction: readonly [number, number];
  what: string;
}

/**
 * Percent fields whose plausible range tells the unit. Ranges do not overlap, so a value has at most
 * one reading; 0 is 0 either way.
 */
export const PERCENT_RULES: Readonly<Record<string, PercentRule>> = {
  downPaymentPercentage: { percent: [1.5, 100], fraction: [0, 1], what: "a down payment" },
  interestRatePercentage: { percent: [0.5, 25], fraction: [0, 0.25], what: "an interest rate" },
  propertyTaxPercentage: { percent: [0.05, 10], fraction: [0, 0.05], what: "a property tax rate" },
  ltrMonthlyExpensesPercentage: { percent: [1.5, 100], fraction: [0, 1], what: "an expense share" },
  cohostCommissionPercentage: { percent: [1.5, 100], fraction: [0, 1], what: "a commission" },
};

/** A percent field by its plausible range (PERCENT_RULES), read as a percent. */
export function readRangedPercent(name: string, value: number, rule: PercentRule): Reading {
  if (value === 0) return { value };
  const within = ([lo, hi]: readonly [number, number]) => value > lo && value <= hi;
  if (value >= rule.percent[0] && value <= rule.percent[1]) return { value };
  if (within(rule.fraction)) {
    const percent = round(value * 100, 4);
    return { value: percent, note: `${name} given as a fraction (${value}), read as ${percentText(percent)}` };
  }
  return { value: undefined, note: outside(name, value, `${rule.what} as a percent or a fraction`) };
}

/**
 * A return (cap rate, cash-on-cash, ROI) read as a percent: a return can be small or negative, so
 * its range cannot tell 0.0858 (a fraction: 8.58 %) from 0.0858 %. The figures it is computed from
 * can: `expected` is that percent, when the answer has them. Without them, a value of 1 or more
 * (either sign) is a percent, and a smaller one cannot be told and is dropped.
 */
export function readReturnPercent(name: string, value: number, expected: number | undefined): Reading {
  if (value === 0) return { value };
  const asPercent = value;
  const fromFraction = round(value * 100, 4);
  if (expected !== undefined && Number.isFinite(expected)) {
    if (Math.abs(fromFraction - expected) < Math.abs(asPercent - expected))
      return {
        value: fromFraction,
        note: `${name} given as a fraction (${value}), read as ${percentText(fromFraction)}`,
      };
    return { value: asPercent };
  }
  if (Math.abs(value) >= 1) return { value: asPercent };
  return {
    value: undefined,
    note: `${name} (${value}) could be ${percentText(fromFraction)} or ${percentText(asPercent)}, and the answer has no figures to tell which; left blank`,
  };
}

function outside(name: string, value: number, what: string): string {
  return `${name} (${value}) is not ${what}; left blank`;
}
