import path from "node:path";

/*
 * What --out writes, told by its extension: a workbook with the report sheets, or the screened
 * sheet's columns and rows as CSV or JSON for scripts (docs/cli.md, "Output").
 */

export const OUTPUT_FORMATS = ["xlsx", "csv", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function outputFormatOf(file: string): OutputFormat | undefined {
  const ext = path.extname(file).slice(1).toLowerCase();
  return (OUTPUT_FORMATS as readonly string[]).includes(ext) ? (ext as OutputFormat) : undefined;
}
