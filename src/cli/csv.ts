/*
 * CSV as spreadsheets write it: RFC 4180 quoting (quoted fields hold commas, quotes as "" and line
 * breaks), a UTF-8 byte-order mark, CRLF or LF, Excel's "sep=;" first line, semicolons or tabs where
 * a locale uses them, and Windows-1252 text from Excel's plain "CSV (Comma delimited)".
 */

/** Text of a CSV file: UTF-8 (with or without BOM), UTF-16 with BOM, else Windows-1252. */
export function decodeCsv(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    // Not UTF-8: Excel on Windows saves plain CSV in the ANSI code page, Windows-1252 in the West.
    return decodeWindows1252(bytes);
  }
}

/** 0x80–0x9F of Windows-1252 (the rest is Latin-1); written out because Node's decoder of that name reads them as Latin-1. */
const CP1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

function decodeWindows1252(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += b >= 0x80 && b <= 0x9f ? (CP1252_HIGH[b - 0x80] as string) : String.fromCharCode(b);
  return text;
}

const DELIMITERS = [",", ";", "\t"] as const;

/** The delimiter of CSV text: Excel's "sep=" first line, else the most frequent of , ; and tab in the first line. */
export function csvDelimiter(input: string): string {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  return /^sep=(.)\r?\n/i.exec(text)?.[1] ?? sniffDelimiter(text);
}

/** Parses CSV text into rows of fields (strings). Rows keep their own lengths; a final line break adds no row. */
export function parseCsv(input: string): string[][] {
  let text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const delimiter = csvDelimiter(text);
  const sep = /^sep=(.)\r?\n/i.exec(text);
  if (sep) text = text.slice(sep[0].length);

  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = "";
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field.trim() === "") {
      // A quote opens a quoted field only at its start (spaces before it are dropped, as Excel does).
      field = "";
      quoted = true;
      i++;
    } else if (ch === delimiter) {
      endField();
      i++;
    } else if (ch === "\r" || ch === "\n") {
      endRow();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== "" || row.length > 0 || quoted) endRow();
  return rows;
}

/** The delimiter of the first line: the most frequent of , ; and tab outside quotes (comma on a tie). */
function sniffDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "\n" || ch === "\r")) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) as number) + 1);
  }
  let best: string = ",";
  for (const d of DELIMITERS) if ((counts.get(d) as number) > (counts.get(best) as number)) best = d;
  return best;
}
