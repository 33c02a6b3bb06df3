import { RelayConfig } from "../config";

/*
 * Office loads an add-in's pages only over https, so a relay that serves the add-in over plain http
 * hands out a manifest Excel will not load. Said at start, on stderr, with the command that fixes it
 * on this computer and the way for a relay other people reach.
 */

export const DEV_CERTS_COMMAND =
  "npx office-addin-dev-certs install && RELAY_TLS_DEV_CERTS=true npx --no-install str-relay";

/** The advice when the add-in is served and its public URL is http; undefined otherwise. */
export function plainHttpAdvice(config: Pick<RelayConfig, "publicUrl">, addinServed: boolean): string | undefined {
  if (!addinServed || new URL(config.publicUrl).protocol !== "http:") return undefined;
  return [
    `The add-in is served over plain http (${config.publicUrl}/manifest.xml): Office loads add-in pages only over https, so Excel will not load it.`,
    "On this computer, one command fixes it (a development certificate Office trusts, then the relay on https):",
    `  ${DEV_CERTS_COMMAND}`,
    "For a relay other people reach: RELAY_TLS_CERT and RELAY_TLS_KEY, or an https proxy and RELAY_PUBLIC_URL (docs/relay.md#tls).",
  ].join("\n");
}
