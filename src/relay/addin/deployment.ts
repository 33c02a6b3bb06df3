import { createHash } from "node:crypto";

/*
 * What tells one relay's add-in from another's in the same Excel: its manifest `<Id>` and, outside
 * production, a suffix on its name. Office keys an add-in by its Id, so two relays serving the same
 * Id (a staging and a production relay added to one Excel) would replace each other.
 */

/** The Id in manifest.xml: the dev server's add-in keeps it, and it is the namespace of every derived Id. */
export const DEV_ADDIN_ID = "39acac6d-0984-4a68-83e8-9c01a4d36dbe";

export const ADDIN_NAME = "STR Underwriting";

/** The icons' tile colour (TEAL in scripts/make-icons.js): the unified manifest's accent and the connector's brand colour. */
export const ACCENT_COLOR = "#0F766E";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The add-in Id for a relay at `publicBase` (origin and path, no trailing slash): the RFC 4122
 * version-5 UUID of that URL in the namespace DEV_ADDIN_ID, so the same URL always gets the same Id
 * (an upgrade replaces the add-in in place) and another URL another one.
 */
export function addinIdFor(publicBase: string): string {
  const namespace = Buffer.from(DEV_ADDIN_ID.replace(/-/g, ""), "hex");
  const hash = createHash("sha1").update(namespace).update(publicBase, "utf8").digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The add-in's display name: plain for production; `RELAY_DEPLOYMENT_NAME` in brackets when set;
 * "(local)" for a relay whose public URL is on this machine, which no one else can reach.
 */
export function addinNameFor(publicUrl: URL, deploymentName: string | undefined): string {
  const label = deploymentName ?? (LOOPBACK_HOSTS.has(publicUrl.hostname) ? "local" : undefined);
  return label ? `${ADDIN_NAME} (${label})` : ADDIN_NAME;
}
