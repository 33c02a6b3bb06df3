/*
 * Secrets never leave the relay: the service's key and the relay tokens are replaced in any text
 * that may reach a caller, the store or a log line (upstream answers, error text, URLs).
 *
 * A secret is found in the forms it could be echoed back in, not only as itself: with its letters
 * in another case, with any of its characters percent-encoded or written as a JSON escape, and
 * inside base64 (standard or URL alphabet, at any of the three alignments a longer encoded text can
 * give it). A JSON answer is also redacted after it is parsed, string by string and key by key
 * (redactParsed): an escape the raw scan missed comes back plain only there.
 */

export const REDACTED = "[redacted]";

/** Header names whose values the logger never writes. */
export const REDACTED_HEADERS = [
  "authorization",
  "x-bnbcalc-api-key",
  "x-service-api-key",
  "cookie",
  "proxy-authorization",
];

export type Redactor = (text: string) => string;

/** Shorter strings are not treated as secrets: they would match ordinary text. */
const MIN_SECRET_LENGTH = 6;

export function makeRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const list = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH))];
  if (list.length === 0) return (text) => text;
  // Longest first, so a secret that contains another is replaced whole.
  const forms = list
    .flatMap((s) => [textPattern(s), ...base64Forms(s).map(escapeRegExp)])
    .sort((a, b) => b.length - a.length);
  const pattern = new RegExp(forms.join("|"), "gi");
  return (text) => text.replace(pattern, REDACTED);
}

/**
 * The secret with each character as itself (any case), percent-encoded (either hex case), or as
 * a JSON string escape (`\u005f`, a surrogate pair, `\/`, `\"`, `\\`).
 */
function textPattern(secret: string): string {
  let out = "";
  for (const ch of secret) {
    const encoded = [...Buffer.from(ch, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
    const forms = [escapeRegExp(ch), encoded, ...jsonEscapes(ch).map(escapeRegExp)];
    out += `(?:${forms.join("|")})`;
  }
  return out;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  "/": "\\/",
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** How a JSON text may write one character inside a string (the regular expression ignores case). */
function jsonEscapes(ch: string): string[] {
  // A character beyond the first plane is two UTF-16 units, each escaped on its own.
  const units = Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`);
  const short = SHORT_ESCAPES[ch];
  return [units.join(""), ...(short ? [short] : [])];
}

/**
 * The part of the secret's base64 that does not depend on the bytes around it, for each of the
 * three offsets it can start at inside a longer encoded text, in both alphabets.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Character i carries bits 6i to 6i+6; keep those that lie wholly inside the secret's bytes.
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = encoded.slice(first, end);
    if (core.length >= MIN_SECRET_LENGTH) forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...new Set(forms)];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A parsed JSON value with every string, every object key and every number that spells a secret
 * redacted: the raw text's scan cannot see every way JSON can write one.
 */
export function redactParsed(value: unknown, redact: Redactor): unknown {
  if (typeof value === "string") return redact(value);
  if (typeof value === "number") return redact(String(value)) === String(value) ? value : REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactParsed(v, redact));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redact(k)] = redactParsed(v, redact);
  return out;
}

/** A test for any of `secrets` in any of the forms above (a relay token in a URL, say). */
export function secretFinder(secrets: readonly string[]): (text: string) => boolean {
  const redact = makeRedactor(secrets);
  return (text) => redact(text) !== text;
}
