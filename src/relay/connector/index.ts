import fs from "node:fs";
import path from "node:path";
import { connectorDefinition } from "./definition";
import { connectorProperties } from "./properties";

export { NOT_FOR_FLOWS, connectorDefinition } from "./definition";
export { BRAND_COLOR, connectorProperties } from "./properties";

/*
 * The connector's files as `paconn create` takes them (--api-def, --api-prop, --icon), written by
 * `npm run connector` (scripts/connector.ts) to docs/connector/.
 */

/** Where the committed connector is for: a placeholder host docs/automation.md says to replace. */
export const PLACEHOLDER_URL = "https://relay.example.com";

/** The add-in's 128-pixel icon: the connector's icon is the add-in's. */
export const ICON_FILE = path.resolve(__dirname, "..", "..", "..", "assets", "icon-128.png");

/** File name → content. Microsoft's coding standards for connectors indent with four spaces. */
export function connectorFiles(publicUrl: string = PLACEHOLDER_URL): Record<string, string | Buffer> {
  return {
    "apiDefinition.swagger.json": `${JSON.stringify(connectorDefinition(publicUrl), null, 4)}\n`,
    "apiProperties.json": `${JSON.stringify(connectorProperties(), null, 4)}\n`,
    "icon.png": fs.readFileSync(ICON_FILE),
  };
}
