import type ExcelJS from "exceljs";

/*
 * Every workbook str-screen writes asks Excel to recalculate it on opening (calcPr fullCalcOnLoad):
 * without it, the user's own formulas over the results show the values Excel cached before the
 * refresh until a manual recalculation. A loaded workbook writes the flag from calcProperties;
 * exceljs's streaming writer writes calcPr without it whatever it is told, so its workbook part
 * gets the attribute as it is added to the zip.
 */

export function calculateOnLoad(book: ExcelJS.Workbook): void {
  book.calcProperties = { ...book.calcProperties, fullCalcOnLoad: true };
}

const WORKBOOK_PART = "/xl/workbook.xml";

type Zip = { append: (data: unknown, options: { name: string }) => unknown };

export function streamCalculateOnLoad(book: ExcelJS.stream.xlsx.WorkbookWriter): void {
  const zip = (book as unknown as { zip: Zip }).zip;
  const append = zip.append.bind(zip);
  zip.append = (data, options) =>
    append(
      options.name === WORKBOOK_PART && typeof data === "string"
        ? data.replace(/<calcPr\b(?![^>]*fullCalcOnLoad)/, '<calcPr fullCalcOnLoad="1"')
        : data,
      options,
    );
}
