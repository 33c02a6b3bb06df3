import {
  CustomFunctionCell,
  DoubleCellValue,
  FormattedCell,
  FormattedNumberCellValue,
  HostSupport,
  PLAIN_HOST,
  formattedNumberSupport,
  splitGrid,
  toCellValues,
} from "../../src/sheet";

const grid: FormattedCell[][] = [
  [{ value: "Cap rate" }, { value: 0.0853, format: "0.0%" }],
  [{ value: "Guests" }, { value: 8 }],
  [{ value: "Report" }, { value: "https://reports.example/1", format: "@" }],
  [{ value: "Missing" }, { value: "" }],
  [{ value: "Flag" }, { value: true }],
  [{ value: "General" }, { value: 3, format: "General" }],
];

describe("toCellValues: formatted numbers for custom functions", () => {
  test("ExcelApi 1.19: a Double carrying its number format", () => {
    const cells = toCellValues(grid, { formattedNumbers: "double" });
    expect(cells[0]).toEqual(["Cap rate", { type: "Double", basicValue: 0.0853, numberFormat: "0.0%" }]);
  });

  test("ExcelApi 1.16–1.18: a FormattedNumber", () => {
    const cells = toCellValues(grid, { formattedNumbers: "formatted-number" });
    expect(cells[0]).toEqual(["Cap rate", { type: "FormattedNumber", basicValue: 0.0853, numberFormat: "0.0%" }]);
  });

  test("no data types: the plain number", () => {
    expect(toCellValues(grid, PLAIN_HOST)[0]).toEqual(["Cap rate", 0.0853]);
  });

  test.each<HostSupport["formattedNumbers"]>(["double", "formatted-number", "none"])(
    "%s: text, blanks, booleans and unformatted numbers stay plain",
    (level) => {
      const cells = toCellValues(grid, { formattedNumbers: level });
      expect(cells.slice(1)).toEqual([
        ["Guests", 8],
        ["Report", "https://reports.example/1"],
        ["Missing", ""],
        ["Flag", true],
        ["General", 3],
      ]);
    },
  );

  test("the shapes are Excel's own cell value types", () => {
    // Type-level: fails `npm run typecheck` if office-js's definitions move away from ours.
    const double: DoubleCellValue = { type: "Double", basicValue: 1, numberFormat: "0.0%" };
    const formatted: FormattedNumberCellValue = { type: "FormattedNumber", basicValue: 1, numberFormat: "0.0%" };
    const asExcel: Excel.CellValue[] = [double, formatted];
    const anyCell: CustomFunctionCell[] = ["text", 1, true, double, formatted];
    expect(asExcel).toHaveLength(2);
    expect(anyCell).toHaveLength(5);
  });
});

describe("formattedNumberSupport reads the requirement sets", () => {
  const host = (sets: string[]) => (name: string, version: string) => sets.includes(`${name} ${version}`);

  test("1.19 → double, 1.16 → formatted-number, older → none", () => {
    expect(formattedNumberSupport(host(["ExcelApi 1.19", "ExcelApi 1.16"]))).toBe("double");
    expect(formattedNumberSupport(host(["ExcelApi 1.16"]))).toBe("formatted-number");
    expect(formattedNumberSupport(host([]))).toBe("none");
  });
});

describe("splitGrid: what the task pane and the CLI write", () => {
  test("values and formats in parallel, General where a cell has none", () => {
    const { values, formats } = splitGrid(grid);
    expect(values).toEqual([
      ["Cap rate", 0.0853],
      ["Guests", 8],
      ["Report", "https://reports.example/1"],
      ["Missing", ""],
      ["Flag", true],
      ["General", 3],
    ]);
    expect(formats).toEqual([
      ["General", "0.0%"],
      ["General", "General"],
      ["General", "@"],
      ["General", "General"],
      ["General", "General"],
      ["General", "General"],
    ]);
  });
});
