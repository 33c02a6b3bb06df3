/*
 * URLs as they are printed (the start banner, str-screen's summary): a base URL may carry a
 * user:password part, which must not reach a terminal, a log or a workbook.
 */

/** `url` without its user:password part, or a placeholder when it cannot be read. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(unreadable URL)";
  }
}
