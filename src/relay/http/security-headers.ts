import { Access } from "./access";

/*
 * The headers every answer carries, chosen by what it is. The API's JSON is never cached, framed
 * or run as a page; the add-in's pages may be framed by Office on the web and load office.js from
 * Microsoft's CDN and nothing else from elsewhere.
 */

export const BASE_HEADERS = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" } as const;

/** For answers that are data, not pages: the API, the metrics, /healthz and every error. */
export const API_HEADERS = {
  ...BASE_HEADERS,
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
} as const;

/**
 * The hosts that frame an add-in's pages in Office on the web (Excel's frame and the pages around
 * it: Microsoft 365, OneDrive, SharePoint). Microsoft's "Privacy and security for Office Add-ins"
 * page: add-ins run in an iframe of the Office web client. Desktop Excel hosts the pane in its own
 * webview, with no ancestor to check.
 */
export const OFFICE_FRAME_ANCESTORS = [
  "https://*.officeapps.live.com",
  "https://*.office.com",
  "https://*.office365.com",
  "https://*.microsoft365.com",
  "https://*.cloud.microsoft",
  "https://*.sharepoint.com",
  "https://onedrive.live.com",
  "https://*.onedrive.live.com",
];

/** Microsoft's CDN, where every page of an add-in loads office.js from (and office.js its parts). */
export const OFFICE_JS_ORIGIN = "https://appsforoffice.microsoft.com";

/**
 * The task pane and the functions' page: their own scripts, office.js, styles (Fluent UI sets some
 * inline), images (report photos are on the service's hosts), and calls to the relay, which the
 * user may run on another https host than the one serving the pane.
 */
export const ADDIN_PAGE_CSP = [
  "default-src 'self'",
  `script-src 'self' ${OFFICE_JS_ORIGIN}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self' data:",
  "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
  `frame-src 'self' ${OFFICE_JS_ORIGIN}`,
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  `frame-ancestors 'self' ${OFFICE_FRAME_ANCESTORS.join(" ")}`,
].join("; ");

/** The headers for an answer of a route with `access`, given its content type. */
export function headersFor(access: Access, contentType: string): Record<string, string> {
  if (access !== "public") return { ...API_HEADERS };
  // Files keep their own caching headers (static files an hour, the manifest no-cache).
  const csp = /^text\/html/i.test(contentType) ? ADDIN_PAGE_CSP : "default-src 'none'; frame-ancestors 'none'";
  return { ...BASE_HEADERS, "content-security-policy": csp };
}
