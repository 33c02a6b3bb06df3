import { excelDateTime, excelSerialOf } from "../../src/sheet";
import { PlannedRows, isOlderThan, readAgeDays, refreshAged } from "../../src/screening";

const NOW = new Date("2026-11-24T12:00:00Z");
const serialDaysAgo = (days: number) => (excelDateTime(NOW.toISOString()) as number) - days;

describe("which rows are older than N days", () => {
  test("a fetched date more than N days back is aged; N days or less, or no date, is not", () => {
    const rule = { days: 30, now: NOW };
    expect(isOlderThan(serialDaysAgo(31), rule)).toBe(true);
    expect(isOlderThan(serialDaysAgo(30), rule)).toBe(false);
    expect(isOlderThan(serialDaysAgo(2), rule)).toBe(false);
    expect(isOlderThan("", rule)).toBe(false);
    expect(isOlderThan(undefined, rule)).toBe(false);
    expect(isOlderThan("Failed", rule)).toBe(false);
  });

  test("a fetched cell reads the same as a number, an exceljs Date and CSV text", () => {
    const serial = excelSerialOf(new Date(Date.UTC(2026, 0, 15, 9, 30)));
    expect(serial).toBeCloseTo(46037.395833, 5);
    expect(excelSerialOf("2026-01-15 09:30")).toBeCloseTo(serial as number, 9);
    expect(excelSerialOf("2026-01-15")).toBe(46037);
    expect(excelSerialOf(46037.5)).toBe(46037.5);
    expect(excelSerialOf("last week")).toBeUndefined();
  });

  test("only aged rows' items get refresh; the others lose a refresh they had", () => {
    const plan: PlannedRows = {
      rows: [
        { sheetRow: 1, property: "a", kind: "request", op: "buy", item: 0, unusual: [] },
        { sheetRow: 2, property: "b", kind: "blank" },
        { sheetRow: 3, property: "c", kind: "request", op: "buy", item: 1, unusual: [] },
        { sheetRow: 4, property: "d", kind: "request", op: "buy", item: 2, unusual: [] },
      ],
      items: [
        { strategy: "buy", params: { fullAddress: "a" } },
        { strategy: "buy", params: { fullAddress: "c" }, refresh: true },
        { strategy: "buy", params: { fullAddress: "d" } },
      ],
      itemRows: [0, 2, 3],
      strategy: "buy",
    };
    const fetched: Record<number, number | string> = { 1: serialDaysAgo(90), 3: serialDaysAgo(1), 4: "" };
    const { plan: aged, aged: count } = refreshAged(plan, (r) => fetched[r], { days: 7, now: NOW });
    expect(count).toBe(1);
    expect(aged.items.map((i) => i.refresh === true)).toEqual([true, false, false]);
    expect(plan.items[1]?.refresh).toBe(true);
  });

  test("DAYS must be a number of days, 0 or more", () => {
    expect(readAgeDays("30")).toEqual({ ok: true, days: 30 });
    expect(readAgeDays(0.5)).toEqual({ ok: true, days: 0.5 });
    expect(readAgeDays("-1")).toMatchObject({ ok: false, message: expect.stringMatching(/0 or more; got "-1"/) });
    expect(readAgeDays("a month")).toMatchObject({ ok: false });
  });
});
