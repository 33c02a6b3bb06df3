import { RelayCallError } from "../../src/client";
import {
  DATE_TIME_FORMAT,
  FETCHED_HEADER,
  STATUS_HEADER,
  defaultScreeningFields,
  findResultBlock,
  resultBlockHeader,
  resultBlockRow,
  resultBlockWidth,
  rowStatusOf,
  screeningRow,
} from "../../src/sheet";
import { buyAnswer } from "./fixtures";

describe("the result block beside a screened table (task pane and str-screen)", () => {
  const fields = defaultScreeningFields("buy");

  test("header: status, fetched, the fields' labels, Warnings; as wide as resultBlockWidth", () => {
    const header = resultBlockHeader(fields, true).map((c) => c.value);
    expect(header.slice(0, 2)).toEqual([STATUS_HEADER, FETCHED_HEADER]);
    expect(header.slice(2, -1)).toEqual(fields.map((f) => f.label));
    expect(header.at(-1)).toBe("Warnings (sandbox: simulated data)");
    expect(header).toHaveLength(resultBlockWidth(fields));
  });

  test("a row: status text, fetched as an Excel date under a date format, then the screening row", () => {
    const row = resultBlockRow({ answer: buyAnswer }, fields, rowStatusOf(buyAnswer));
    expect(row[0]?.value).toBe(buyAnswer.relay.cached ? "Cached" : "Created");
    expect(typeof row[1]?.value).toBe("number");
    expect(row[1]?.format).toBe(DATE_TIME_FORMAT);
    expect(row.slice(2)).toEqual(screeningRow({ answer: buyAnswer }, fields));
  });

  test("a failed row: Failed, no date, the error in its last cell", () => {
    const error = new RelayCallError("STR_BUDGET_EXCEEDED", "Today's budget is spent.");
    const row = resultBlockRow({ error }, fields, "failed");
    expect(row.map((c) => c.value).slice(0, 2)).toEqual(["Failed", ""]);
    expect(row.at(-1)?.value).toMatch(/^✖ \[STR_BUDGET_EXCEEDED\]/);
    expect(row).toHaveLength(resultBlockWidth(fields));
  });

  test("status from the relay's flags: cached, shared with an identical item, created, or an error body", () => {
    expect(rowStatusOf({ ...buyAnswer, relay: { ...buyAnswer.relay, cached: true } })).toBe("cached");
    expect(rowStatusOf({ ...buyAnswer, relay: { ...buyAnswer.relay, cached: false, shared: true } })).toBe("duplicate");
    expect(rowStatusOf({ ...buyAnswer, relay: { ...buyAnswer.relay, cached: false } })).toBe("created");
    expect(rowStatusOf({ success: false, error: { code: "STR_VALIDATION", message: "x" } })).toBe("failed");
  });

  test("found in a header row among the user's columns, with its fields; input labels beside it are not swallowed", () => {
    const headers = ["Address", "Bedrooms", ...resultBlockHeader(fields, false).map((c) => c.value), "Notes"];
    expect(findResultBlock(headers)).toEqual({ start: 2, width: resultBlockWidth(fields), fields });
  });

  test("without its Warnings header it runs through the labels that follow the status", () => {
    const headers = ["Address", STATUS_HEADER, FETCHED_HEADER, "Cap rate", "Notes"];
    expect(findResultBlock(headers)).toMatchObject({ start: 1, width: 3 });
    expect(findResultBlock(headers)?.fields.map((f) => f.path)).toEqual(["yearOneCapRatePercentage"]);
  });

  test("no status header, no block", () => {
    expect(findResultBlock(["Address", "Annual revenue, median", "Warnings"])).toBeUndefined();
  });
});
