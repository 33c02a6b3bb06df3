import { decodeCsv, parseCsv } from "../../src/cli/csv";

describe("CSV as spreadsheets write it", () => {
  test("quoted fields hold the delimiter, doubled quotes and line breaks", () => {
    expect(parseCsv('a,"b, c","say ""hi""","line\nbreak",e\n1,2,3,4,5\n')).toEqual([
      ["a", "b, c", 'say "hi"', "line\nbreak", "e"],
      ["1", "2", "3", "4", "5"],
    ]);
  });

  test("CRLF and a byte-order mark; a final line break adds no row; empty lines are empty rows", () => {
    expect(parseCsv("\ufeffAddress,Price\r\n12 Main,415000\r\n\r\n,\r\n")).toEqual([
      ["Address", "Price"],
      ["12 Main", "415000"],
      [""],
      ["", ""],
    ]);
  });

  test("a quote inside an unquoted field is text; spaces before an opening quote are dropped", () => {
    expect(parseCsv('55" TV,  "x, y"\n')).toEqual([['55" TV', "x, y"]]);
  });

  test("semicolons and tabs where the first line uses them, and Excel's sep= line", () => {
    expect(parseCsv("Address;Price\n12 Main St, Austin;415000,50\n")).toEqual([
      ["Address", "Price"],
      ["12 Main St, Austin", "415000,50"],
    ]);
    expect(parseCsv("Address\tPrice\n12 Main\t415000\n")).toEqual([
      ["Address", "Price"],
      ["12 Main", "415000"],
    ]);
    expect(parseCsv("sep=;\r\na;b\r\n1;2\r\n")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  test("an unterminated quote keeps the rest of the file in the field rather than losing it", () => {
    expect(parseCsv('a,"b\nc')).toEqual([["a", "b\nc"]]);
  });

  test("UTF-8 with or without BOM, UTF-16 with BOM, and Windows-1252 from Excel's plain CSV", () => {
    expect(decodeCsv(Buffer.from("\ufeffCafé", "utf8"))).toBe("Café");
    expect(decodeCsv(Buffer.from("Café", "utf8"))).toBe("Café");
    expect(decodeCsv(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Café", "utf16le")]))).toBe("Café");
    expect(decodeCsv(Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80]))).toBe("Café €");
  });
});
