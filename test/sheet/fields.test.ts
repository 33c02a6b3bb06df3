import { FieldInfo, fieldsOf } from "../../src/contract";
import { fieldsHeader, fieldsRow, parseFieldList } from "../../src/sheet";
import { arbAnswer, buyAnswer, sparseAnswer, warningsOnlyAnswer } from "./fixtures";

function fieldsOrThrow(
  input: Parameters<typeof parseFieldList>[0],
  options?: Parameters<typeof parseFieldList>[1],
): readonly FieldInfo[] {
  const result = parseFieldList(input, options);
  if (!result.ok) throw new Error(result.message);
  return result.fields;
}

const paths = (fields: readonly FieldInfo[]) => fields.map((f) => f.path);

describe("parseFieldList reads what users write", () => {
  test("paths separated by commas, semicolons and line breaks", () => {
    expect(paths(fieldsOrThrow("revenue.p50, yearOneCashFlowUSD;occupancy.p75\nurl"))).toEqual([
      "revenue.p50",
      "yearOneCashFlowUSD",
      "occupancy.p75",
      "url",
    ]);
  });

  test("labels, case and punctuation ignored", () => {
    expect(paths(fieldsOrThrow("Cash-on-cash return; CAP RATE, annual revenue - median"))).toEqual([
      "yearOneCashOnCashPercentage",
      "yearOneCapRatePercentage",
      "revenue.p50",
    ]);
  });

  test("a label's own comma is not a separator", () => {
    expect(paths(fieldsOrThrow("Occupancy, median, url, Nightly rate, 90th percentile"))).toEqual([
      "occupancy.p50",
      "url",
      "adr.p90",
    ]);
  });

  test("paths without their unit suffix", () => {
    expect(paths(fieldsOrThrow("yearOneCashFlow, yearOneCapRate"))).toEqual([
      "yearOneCashFlowUSD",
      "yearOneCapRatePercentage",
    ]);
  });

  test("a range of cells, one or more names per cell, blanks skipped", () => {
    expect(
      paths(
        fieldsOrThrow([
          ["revenue.p50", "", "Cap rate"],
          ["adr.p50; occupancy.p50", null, undefined],
        ]),
      ),
    ).toEqual(["revenue.p50", "yearOneCapRatePercentage", "adr.p50", "occupancy.p50"]);
  });

  test("a number or boolean in the range is not a field name", () => {
    const result = parseFieldList([["revenue.p50", 3, false]]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toBe('fields: "3" is not a field; "false" is not a field');
  });

  test("a column range reads top to bottom", () => {
    expect(paths(fieldsOrThrow([["url"], ["_id"], ["revenue.p90"]]))).toEqual(["url", "_id", "revenue.p90"]);
  });

  test("duplicates are kept, in order, so cells line up with the list", () => {
    expect(paths(fieldsOrThrow("revenue.p50, url, revenue.p50"))).toEqual(["revenue.p50", "url", "revenue.p50"]);
  });

  test("the header's labels read back as the same fields", () => {
    const fields = fieldsOf("buy");
    const header = fieldsHeader(fields)
      .slice(0, -1)
      .map((c) => c.value);
    expect(fieldsOrThrow([header])).toEqual(fields);
  });
});

describe("parseFieldList errors name the problem", () => {
  test("an unknown name is named, with close matches", () => {
    const result = parseFieldList("revenue.p50, cashflow");
    expect(result).toEqual({
      ok: false,
      message: expect.stringMatching(/"cashflow" is not a field; did you mean .*yearOneCashFlowUSD/),
    });
  });

  test("a misspelt path suggests the right one", () => {
    const result = parseFieldList("reveneu.p50");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/"reveneu\.p50" is not a field; did you mean revenue\.p50/);
  });

  test("every unknown name is named, not only the first", () => {
    const result = parseFieldList("foo, revenue.p50, zzqqxx");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(/^fields: /);
      expect(result.message).toContain('"foo" is not a field');
      expect(result.message).toContain('"zzqqxx" is not a field');
    }
  });

  test("an empty list says how to write one", () => {
    for (const input of ["", " ; , ", [[""]], []]) {
      const result = parseFieldList(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/fields is empty.*revenue\.p50/);
    }
  });

  test("with a strategy, a field that strategy never has is refused", () => {
    const result = parseFieldList("revenue.p50, Cap rate", { strategy: "arb" });
    expect(result).toEqual({
      ok: false,
      message: "fields: yearOneCapRatePercentage is not in arb analyses (only buy, owned)",
    });
    expect(parseFieldList("revenue.p50, Cap rate", { strategy: "owned" }).ok).toBe(true);
  });

  test("a list is read once: the same text and strategy give the same frozen answer, another strategy its own", () => {
    // A column of formulas passes one list per row: each row after the first reuses the first's reading.
    const first = parseFieldList([["revenue.p50", "Cap rate"]], { strategy: "buy" });
    expect(parseFieldList([["revenue.p50", "Cap rate"]], { strategy: "buy" })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(parseFieldList([["revenue.p50", "Cap rate"]], { strategy: "arb" }).ok).toBe(false);
    expect(parseFieldList([["revenue.p50"], ["Cap rate"]], { strategy: "buy" })).toEqual(first);
  });
});

describe("fieldsRow: one row, the fields then the warnings", () => {
  const fields = fieldsOrThrow("revenue.p50, occupancy.p50, Cash-on-cash return, url");

  test("values in the order asked, formatted, then the warnings joined in the last cell", () => {
    expect(fieldsRow(buyAnswer, fields)).toEqual([
      { value: 60000, format: "$#,##0" },
      { value: 0.725, format: "0.0%" },
      { value: 0.075, format: "0.0%" },
      { value: "https://reports.example/an_buy_1", format: "@" },
      {
        value:
          "⚠ SANDBOX: simulated data | AI comparables skipped: fewer than 8 usable listing photos | AI expense estimates timed out; category defaults used",
      },
    ]);
  });

  test("no warnings → an empty last cell", () => {
    expect(fieldsRow(arbAnswer, fields).at(-1)).toEqual({ value: "" });
  });

  test("missing fields are empty cells and the row keeps its width", () => {
    const row = fieldsRow(sparseAnswer, fieldsOrThrow("adr.p50, revenue.p50, yearOneCashFlowUSD"));
    expect(row.map((c) => c.value)).toEqual(["", 40000, "", ""]);
  });

  test("a warnings-only answer gives blanks and its warnings", () => {
    const row = fieldsRow(warningsOnlyAnswer, fields);
    expect(row).toHaveLength(fields.length + 1);
    expect(row.slice(0, -1).every((c) => c.value === "")).toBe(true);
    expect(row.at(-1)?.value).toBe("⚠ AI comparables: US properties only | AI expense estimates failed");
  });

  test("the header has the labels then Warnings", () => {
    expect(fieldsHeader(fields).map((c) => c.value)).toEqual([
      "Annual revenue, median",
      "Occupancy, median",
      "Cash-on-cash return",
      "Report",
      "Warnings",
    ]);
    expect(fieldsHeader(fields, { sandbox: true }).at(-1)?.value).toBe("Warnings (sandbox: simulated data)");
  });
});
