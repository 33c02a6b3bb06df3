import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * docs/office-scripts/write-results.ts, the Office Script a flow runs to write a job's results into
 * a table: it type-checks against the ExcelScript declaration beside it (no npm package carries
 * Office Scripts' types; excel-script.d.ts is a minimal one written here), keeps to what Office
 * Scripts allow, and its row matching is tested by loading the script's own source.
 */
const DIR = path.resolve(__dirname, "..", "..", "docs", "office-scripts");
const SCRIPT = path.join(DIR, "write-results.ts");
const source = fs.readFileSync(SCRIPT, "utf8");

type Cell = string | number | boolean;
type Result = { success?: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } };
type Plan = { columns: { index: number; values: Cell[][] }[]; written: number; missing: string[] };
interface Loaded {
  planWrites(headers: Cell[], keyColumn: string, current: Cell[][], itemKeys: string[], results: Result[]): Plan;
  main(workbook: unknown, tableName: string, keyColumn: string, itemKeys: string[], results: Result[]): string;
}

/** The script's functions, from its own source, as Office Scripts would run it (one scope, no module). */
function load(): Loaded {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2019 } }).outputText;
  return new Function(`${js}\nreturn { planWrites, main };`)() as Loaded;
}

const answer = (id: string, revenue: number): Result => ({
  success: true,
  data: { _id: id, revenue: { p50: revenue }, yearOneCashFlowUSD: revenue / 10 },
});

test("type-checks, strict, against the ExcelScript declaration", () => {
  const program = ts.createProgram([SCRIPT, path.join(DIR, "excel-script.d.ts")], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2019,
    lib: ["lib.es2019.d.ts"],
    types: [],
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(diagnostics).toEqual([]);
});

test("keeps to Office Scripts' rules: a main taking the workbook first, no any, no imports, no network", () => {
  expect(source).toMatch(/^function main\(\s*workbook: ExcelScript\.Workbook,/m);
  expect(source).not.toMatch(/:\s*any\b|<any>|\bas any\b/);
  expect(source).not.toMatch(/^\s*(import|export)\b|\brequire\(/m);
  expect(source).not.toMatch(/\bfetch\(|XMLHttpRequest/);
});

describe("planWrites: each result to the row holding its item's key", () => {
  const { planWrites } = load();
  const headers = ["Id", "Address", "Revenue", "CashFlow", "Notes"];
  const rows: Cell[][] = [
    [101, "1 A St", "", "", "keep"],
    ["B-2", "2 B St", 5, 6, "keep"],
    [103, "3 C St", "", "", "keep"],
  ];

  test("matches a number in the table to its text in the flow, in any order; other rows and columns keep their cells", () => {
    const plan = planWrites(headers, "Id", rows, ["103", " 101 "], [answer("x3", 300), answer("x1", 100)]);
    expect(plan.written).toBe(2);
    expect(plan.missing).toEqual([]);
    expect(plan.columns.map((c) => c.index)).toEqual([2, 3]);
    expect(plan.columns[0]?.values).toEqual([[100], [5], [300]]);
    expect(plan.columns[1]?.values).toEqual([[10], [6], [30]]);
  });

  test("a key no row has is reported, not written anywhere", () => {
    const plan = planWrites(headers, "Id", rows, ["999", "B-2"], [answer("x9", 900), answer("x2", 200)]);
    expect(plan).toMatchObject({ written: 1, missing: ["999"] });
    expect(plan.columns[0]?.values).toEqual([[""], [200], [""]]);
  });

  test("a failed item writes its error into Status and clears the figures", () => {
    const plan = planWrites(
      ["Id", "Revenue", "Status"],
      "Id",
      [[1, 5, ""]],
      ["1"],
      [{ success: false, error: { code: "STR_VALIDATION", message: "bedrooms: required" } }],
    );
    expect(plan.columns.map((c) => c.values)).toEqual([[[""]], [["STR_VALIDATION: bedrooms: required"]]]);
  });

  test("a missing key column, or keys that do not pair with the results, stop before anything is written", () => {
    expect(() => planWrites(headers, "Key", rows, ["1"], [answer("a", 1)])).toThrow(/no column "Key"/);
    expect(() => planWrites(headers, "Id", rows, ["101", "103"], [answer("a", 1)])).toThrow(/2 keys for 1 results/);
  });
});

test("main writes only the result columns of the named table", () => {
  const { main } = load();
  const writes: { column: number; values: Cell[][] }[] = [];
  const body = {
    getValues: () => [
      [101, "=B2*2", ""],
      [102, "=B3*2", ""],
    ],
    getColumn: (column: number) => ({ setValues: (values: Cell[][]) => writes.push({ column, values }) }),
    setValues: () => {
      throw new Error("the whole body would overwrite formulas");
    },
  };
  const table = {
    getHeaderRowRange: () => ({ getValues: () => [["Id", "Formula", "Revenue"]] }),
    getRangeBetweenHeaderAndTotal: () => body,
  };
  const workbook = { getTable: (name: string) => (name === "Deals" ? table : undefined) };
  expect(main(workbook, "Deals", "Id", ["102"], [answer("x", 7)])).toBe("1 of 1 rows written");
  expect(writes).toEqual([{ column: 2, values: [[""], [7]] }]);
  expect(() => main(workbook, "Nope", "Id", [], [])).toThrow(/No table named "Nope"/);
});
