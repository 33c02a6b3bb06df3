import { z } from "zod";
import { NumberRule, numberField } from "../../contract";

/* How one environment variable is read: blank is unset, numbers from text, safe URLs, origin lists. */

/** An empty variable counts as unset (`RELAY_PORT=` in a .env file means "the default"). */
export const blankIsUnset = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
/** Text, trimmed; blank is unset. */
export const str = () => z.preprocess(blankIsUnset, z.string().trim().optional());
/** A number from text; text that is not a number is kept, so the error shows what was given. */
export const num = (rule: NumberRule) =>
  z.preprocess((v) => {
    const t = blankIsUnset(v);
    return typeof t === "string" && Number.isFinite(Number(t)) ? Number(t) : t;
  }, numberField(rule).optional());
/** http only on this machine; anything that crosses a network is https. */
export function isSafeUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (
      u.protocol === "https:" || (u.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname))
    );
  } catch {
    return false;
  }
}

/**
 * RELAY_ALLOWED_ORIGINS: each entry an origin (`scheme://host[:port]`). A trailing slash is dropped
 * and the host lower-cased, as browsers send it; a path, query, credentials or another scheme is
 * refused, since such an entry could never match and its origin would be refused while listed.
 */
export function originList(text: string, ctx: z.RefinementCtx): string[] {
  const origins: string[] = [];
  for (const entry of text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const plain =
      url &&
      (url.protocol === "https:" || url.protocol === "http:") &&
      url.pathname === "/" &&
      !url.search &&
      !url.hash &&
      !url.username &&
      !url.password;
    if (!url || !plain || !/^[a-z]+:\/\/[^/]+\/?$/i.test(entry)) {
      ctx.addIssue({
        code: "custom",
        message: `must be a comma-separated list of origins such as https://addin.example.com (scheme, host and port only); got ${JSON.stringify(entry)}`,
      });
      continue;
    }
    origins.push(url.origin);
  }
  return origins;
}
