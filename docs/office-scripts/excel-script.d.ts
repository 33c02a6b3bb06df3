/*
 * A minimal declaration of the ExcelScript API, written for this repository (no npm package carries
 * Office Scripts' own type definitions): only what write-results.ts calls, with the signatures
 * Microsoft's ExcelScript reference gives them. test/docs/office-script.test.ts type-checks the
 * script against it.
 */
declare namespace ExcelScript {
  interface Workbook {
    /** The table of that name, or undefined. */
    getTable(key: string): Table | undefined;
  }
  interface Table {
    getHeaderRowRange(): Range;
    getRangeBetweenHeaderAndTotal(): Range;
  }
  interface Range {
    getValues(): (string | number | boolean)[][];
    setValues(values: (string | number | boolean)[][]): void;
    getColumn(column: number): Range;
  }
}
