import { addinIdFor, addinNameFor } from "./deployment";

export { addinIdFor } from "./deployment";

/*
 * The add-in manifest as the relay serves it (GET /manifest.xml). The source manifest and the built
 * dist/manifest.xml point at the dev server, https://localhost:3000; in production the relay serves
 * the add-in itself, so every one of those URLs becomes RELAY_PUBLIC_URL (docs/relay.md, "Going live"),
 * and the add-in gets an Id and a name of its own deployment (deployment.ts).
 */

/** The dev server's origin as written in manifest.xml (and webpack.config.js). */
export const DEV_ADDIN_URL = "https://localhost:3000";

// The dev origin only when the port ends there: https://localhost:30001 and
// https://localhost:3000.example.com are other hosts and stay as they are.
const DEV_URL_PATTERN = /https:\/\/localhost:3000(?![\w.:@-])/g;

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const RULE =
  "must be an absolute https URL without query or fragment, e.g. https://relay.example.com (http only for localhost or 127.0.0.1)";

/**
 * Returns `sourceXml` with every https://localhost:3000 URL moved to `publicUrl` (a trailing slash
 * on it is ignored, so no URL gets `//`). Throws an Error naming RELAY_PUBLIC_URL when the URL could
 * not be where Office loads an add-in from.
 */
export function withPublicUrls(sourceText: string, publicUrl: string): string {
  const base = escapeXml(publicBase(publicUrl).base);
  return sourceText.replace(DEV_URL_PATTERN, () => base);
}

/**
 * The manifest for the relay at `publicUrl`: its URLs (withPublicUrls), an `<Id>` derived from the
 * URL, and the display name and ribbon group label of its deployment.
 */
export function manifestFor(sourceXml: string, publicUrl: string, options: { deploymentName?: string } = {}): string {
  const { base, url } = publicBase(publicUrl);
  const name = escapeXml(addinNameFor(url, options.deploymentName));
  let xml = withPublicUrls(sourceXml, publicUrl);
  xml = replaceOnce(xml, /<Id>[^<]*<\/Id>/, `<Id>${addinIdFor(base)}</Id>`, "<Id>");
  xml = replaceOnce(xml, /(<DisplayName DefaultValue=")[^"]*"/, `$1${name}"`, "<DisplayName DefaultValue>");
  return replaceOnce(xml, /(<bt:String id="Group\.Label" DefaultValue=")[^"]*"/, `$1${name}"`, "Group.Label");
}

/**
 * functions.json with each function's help link (`@helpurl` in functions.ts, written for the dev
 * server) moved to the relay's own help page, where Excel's Insert Function dialog sends users.
 */
export function functionsMetadataFor(sourceJson: string, publicUrl: string): string {
  const { base } = publicBase(publicUrl);
  const metadata = JSON.parse(sourceJson) as { functions?: { helpUrl?: string }[] };
  for (const f of metadata.functions ?? [])
    if (f.helpUrl) f.helpUrl = f.helpUrl.replace(new RegExp(DEV_URL_PATTERN.source), base);
  return JSON.stringify(metadata, null, 2);
}

function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  if (!pattern.test(text))
    throw new Error(`manifest.xml has no ${what} for the relay to set: is it the add-in's manifest?`);
  return text.replace(pattern, replacement);
}

/** The public URL's origin and path, without a trailing slash. */
function publicBase(publicUrl: string): { base: string; url: URL } {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new Error(`RELAY_PUBLIC_URL ${RULE}; got ${JSON.stringify(publicUrl)}`);
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname));
  // A query or fragment would land in the middle of every URL ("…?x=1/taskpane.html"); credentials
  // would be published in the manifest.
  if (!secure || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new Error(`RELAY_PUBLIC_URL ${RULE}; got ${JSON.stringify(publicUrl)}`);
  }
  return { base: `${url.origin}${url.pathname}`.replace(/\/+$/, ""), url };
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}
