import { ExcelRun } from "./host";

/*
 * A small table to try screening on, inserted into a sheet of its own and selected, so the Screen
 * tab's "Read selected table" reads it at once. Made-up listings in one market; written as text
 * the way listing exports have them ("$415,000").
 */
export const SAMPLE_ROWS: readonly (readonly (string | number)[])[] = [
  ["Address", "List price", "Beds", "Baths", "Guests"],
  ["1100 S Lamar Blvd, Austin TX", "$489,000", 2, 2, 6],
  ["2207 E 6th St, Austin TX", "$615,000", 3, 2, 8],
  ["4501 Duval St, Austin TX", "$729,500", 4, 3, 10],
  ["906 W Mary St, Austin TX", "$399,000", 1, 1, 4],
  ["3300 Harris Park Ave, Austin TX", "$875,000", 4, 3.5, 12],
  ["1808 Kinney Ave, Austin TX", "$552,000", 3, 2, 8],
];

export const SAMPLE_SHEET = "STR sample";

/** Adds the sample on a new sheet (a numbered name if one is taken), selects it, and says where. */
export async function insertSampleTable(run: ExcelRun): Promise<{ sheetName: string; address: string }> {
  return run(async (context) => {
    const sheets = context.workbook.worksheets;
    sheets.load("items/name");
    await context.sync();
    const taken = new Set(sheets.items.map((s) => s.name));
    let name = SAMPLE_SHEET;
    for (let n = 2; taken.has(name); n++) name = `${SAMPLE_SHEET} ${n}`;
    const sheet = sheets.add(name);
    const range = sheet.getRangeByIndexes(0, 0, SAMPLE_ROWS.length, SAMPLE_ROWS[0]?.length ?? 0);
    range.numberFormat = SAMPLE_ROWS.map((row) => row.map((v) => (typeof v === "string" ? "@" : "General")));
    range.values = SAMPLE_ROWS.map((row) => [...row]);
    sheet.getRangeByIndexes(0, 0, 1, SAMPLE_ROWS[0]?.length ?? 0).format.font.bold = true;
    range.format.autofitColumns();
    sheet.activate();
    range.select();
    await context.sync();
    // Quoted as Excel writes a sheet name with a space in an address.
    return { sheetName: name, address: `'${name}'!A1:E${SAMPLE_ROWS.length}` };
  });
}
