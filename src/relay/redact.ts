/**
 * Secrets never leave the relay: the service's key and the relay tokens are replaced in any text
 * that may reach a caller or a log line (upstream error text, store errors, exception messages).
 */
export const REDACTED = "[redacted]";

export function makeRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  // Longest first, so a secret that contains another is replaced whole.
  const list = [...new Set(secrets.filter((s): s is string => typeof s === "string" && s.length >= 6))].sort((a, b) => b.length - a.length);
  if (list.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of list) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** Header names whose values the logger never writes. */
export const REDACTED_HEADERS = ["authorization", "x-service-api-key", "cookie", "proxy-authorization"];
