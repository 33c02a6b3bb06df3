import { Cell, excelDateTime, excelSerialOf } from "../sheet";
import { PlannedRows } from "./plan";

/*
 * "Refresh what has aged": of a screened table, only the rows whose analysis was fetched more than
 * `days` days ago are bought again (their items go with `refresh`, past the relay's cache); every
 * other row is planned as before, so it comes from the cache, free. The dry run of the result prices
 * exactly the aged rows. The pane's Refresh and `str-screen --refresh-older-than DAYS` both select here.
 *
 * Ages are read from the result block's "STR fetched" cell, an Excel date in the wall-clock time of
 * whoever wrote it; `now` is compared in the same local time. A row without a fetched date has no
 * analysis to age (it failed, or was never screened) and is planned as usual.
 */

/** Which rows have aged: those fetched more than `days` days before `now`. */
export interface AgeRule {
  /** Older than this many days (a fraction is allowed: 0.5 is twelve hours). */
  days: number;
  /** The instant the ages are measured from; defaults to now. */
  now?: Date;
}

/** Checks a DAYS value as the user gave it: a number of days, 0 or more. */
export function readAgeDays(input: unknown): { ok: true; days: number } | { ok: false; message: string } {
  const n = typeof input === "number" ? input : typeof input === "string" && input.trim() !== "" ? Number(input) : NaN;
  if (!Number.isFinite(n) || n < 0)
    return { ok: false, message: `must be a number of days, 0 or more; got ${JSON.stringify(input ?? null)}` };
  return { ok: true, days: n };
}

/** Whether a fetched cell holds a date more than `rule.days` before `rule.now`. */
export function isOlderThan(fetched: Cell | Date | null | undefined, rule: AgeRule): boolean {
  const serial = excelSerialOf(fetched);
  if (serial === undefined) return false;
  const now = excelDateTime((rule.now ?? new Date()).toISOString()) as number;
  return now - serial > rule.days;
}

/**
 * The plan with `refresh` on the items of aged rows only (and off on the others); `fetchedOf` reads
 * a row's fetched cell by its sheet row. Returns how many rows aged.
 */
export function refreshAged(
  plan: PlannedRows,
  fetchedOf: (sheetRow: number) => Cell | Date | null | undefined,
  rule: AgeRule,
): { plan: PlannedRows; aged: number } {
  let aged = 0;
  const items = plan.items.map((item, i) => {
    const row = plan.rows[plan.itemRows[i] as number];
    const old = row !== undefined && isOlderThan(fetchedOf(row.sheetRow), rule);
    if (old) aged++;
    const { refresh: _ignored, ...rest } = item;
    return old ? { ...rest, refresh: true } : rest;
  });
  return { plan: { ...plan, items }, aged };
}
