/*
 * Timestamps as Excel dates: a serial number (days since 1899-12-30) under a date format, so a
 * sheet can compute with them (`=NOW()-B40` is the age of an analysis). Excel dates have no time
 * zone; they are written in the wall-clock time of whoever writes them (the workbook's user).
 */

export const DATE_TIME_FORMAT = "yyyy-mm-dd hh:mm";

/** The card's date and time of one serial, in two cells: each fits a default-width column, where the one above shows `#######`. */
export const CARD_DATE_FORMAT = "m/d/yy";
export const CARD_TIME_FORMAT = "h:mm";

const MS_PER_DAY = 86_400_000;
/** Excel's day 0 (its 1900 leap-year bug is why it is the 30th, not the 31st). */
const EXCEL_EPOCH_UTC = Date.UTC(1899, 11, 30);

/**
 * The Excel serial of an ISO 8601 instant, in local time (or at `utcOffsetMinutes` east of UTC,
 * for a fixed zone); undefined when the text is not a date.
 */
export function excelDateTime(iso: string, utcOffsetMinutes?: number): number | undefined {
  const instant = Date.parse(iso);
  if (!Number.isFinite(instant)) return undefined;
  const offset = utcOffsetMinutes ?? -new Date(instant).getTimezoneOffset();
  const wallClock = instant + offset * 60_000;
  // Whole seconds: sub-second noise would only make two equal times compare unequal.
  return Math.round((wallClock - EXCEL_EPOCH_UTC) / 1000) / (MS_PER_DAY / 1000);
}

/**
 * A fetched cell read back as an Excel serial: a number (what Excel and the pane read), a Date (what
 * exceljs reads, its wall-clock time in the UTC fields), or "yyyy-mm-dd[ hh:mm[:ss]]" text (what a
 * CSV holds); undefined for anything else.
 */
export function excelSerialOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (value instanceof Date) {
    const time = value.getTime();
    return Number.isFinite(time) ? (time - EXCEL_EPOCH_UTC) / MS_PER_DAY : undefined;
  }
  if (typeof value !== "string") return undefined;
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map((part) => (part === undefined ? 0 : Number(part)));
  const wallClock = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
  return Number.isFinite(wallClock) ? (wallClock - EXCEL_EPOCH_UTC) / MS_PER_DAY : undefined;
}
