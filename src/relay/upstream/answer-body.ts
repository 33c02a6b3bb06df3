import zlib from "node:zlib";

/*
 * Reading the bytes of an answer from the service into what outcome.ts judges: undici's Pool hands
 * over the body as sent, so a compressed body is decoded here (Content-Encoding: gzip, deflate, br,
 * in the order applied), a UTF-8 byte-order mark is dropped, and JSON that writes NaN or Infinity
 * (which JavaScript's own serialisers of some stacks do) is read with those numbers blank.
 * Anything still unreadable is kept as text, for success-outcome.ts to tell a cut-short envelope
 * of the service from a page that is not the service's.
 */

/** The answer's text, decoded; `undecodable` names an encoding that could not be read. */
export interface DecodedText {
  text: string;
  undecodable?: string;
}

/**
 * Decodes `bytes` by their Content-Encoding header, at most `maxBytes` once decoded. A stream cut
 * short is decoded as far as it goes (a truncated answer then reads as truncated JSON, as it would
 * uncompressed); an encoding the relay does not know leaves the bytes as they are.
 */
export function decodeBody(bytes: Buffer, contentEncoding: string | undefined, maxBytes: number): DecodedText {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  let out = bytes;
  // Applied in the order listed: undone last first.
  for (const coding of codings.reverse()) {
    const decoded = decodeOne(out, coding, maxBytes);
    if (decoded === undefined) return { text: textOf(out), undecodable: coding };
    out = decoded;
  }
  return { text: textOf(out) };
}

function decodeOne(bytes: Buffer, coding: string, maxBytes: number): Buffer | undefined {
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: maxBytes };
  try {
    if (coding === "gzip" || coding === "x-gzip") return zlib.gunzipSync(bytes, lenient);
    // "deflate" is zlib-wrapped by the standard, raw by some servers: both are read.
    if (coding === "deflate")
      return isZlibHeader(bytes) ? zlib.inflateSync(bytes, lenient) : zlib.inflateRawSync(bytes, lenient);
    if (coding === "br") {
      return zlib.brotliDecompressSync(bytes, {
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
        maxOutputLength: maxBytes,
      });
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function isZlibHeader(bytes: Buffer): boolean {
  const [cmf, flg] = [bytes[0] ?? 0, bytes[1] ?? 0];
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

/** UTF-8 text without a leading byte-order mark. */
function textOf(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The answer as JSON when it is JSON (NaN and Infinity read as null), else its text. Whether text
 * is the service's envelope cut short or someone else's page is for success-outcome.ts to say.
 */
export function parseBody(text: string, contentType: string | undefined): unknown {
  const looksJson = /json/i.test(contentType ?? "") || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const repaired = blankNonFinite(text);
    if (repaired === text) return text;
    try {
      return JSON.parse(repaired) as unknown;
    } catch {
      return text;
    }
  }
}

const NON_FINITE = /^-?(?:NaN|Infinity)\b/;

/** `text` with every NaN, Infinity and -Infinity outside strings written as null. */
export function blankNonFinite(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (inString) {
      out += ch;
      if (ch === "\\") out += text[++i] ?? "";
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    const literal = ch === "N" || ch === "I" || ch === "-" ? NON_FINITE.exec(text.slice(i, i + 10)) : null;
    if (literal) {
      out += "null";
      i += literal[0].length - 1;
    } else out += ch;
  }
  return out;
}
