/*
 * Secrets never leave the relay: the service's key and the relay tokens are replaced in any text
 * that may reach a caller, the store or a log line (upstream answers, error text, URLs).
 *
 * A secret is found in the forms it could be echoed back in, not only as itself: with its letters
 * in another case, with any of its characters percent-encoded, and inside base64 (standard or URL
 * alphabet, at any of the three alignments a longer encoded text can give it).
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

/** The secret with each character as itself (any case) or percent-encoded (either hex case). */
function textPattern(secret: string): string {
  let out = "";
  for (const ch of secret) {
    const encoded = [...Buffer.from(ch, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
    out += `(?:${escapeRegExp(ch)}|${encoded})`;
  }
  return out;
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

/** A test for any of `secrets` in any of the forms above (a relay token in a URL, say). */
export function secretFinder(secrets: readonly string[]): (text: string) => boolean {
  const redact = makeRedactor(secrets);
  return (text) => redact(text) !== text;
}
