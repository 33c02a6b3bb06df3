import { ACCENT_COLOR } from "../addin/deployment";
import { Json } from "../http/openapi/schemas";

/*
 * The connector's apiProperties.json (paconn's layout: Microsoft's PowerPlatformConnectors
 * repository, tools/paconn-cli/README.md): the connection's one parameter, the relay token, and
 * the brand colour behind the icon.
 */

/** The colour the connector's icon sits on: the add-in's. */
export const BRAND_COLOR = ACCENT_COLOR;

/**
 * `api_key` is the parameter Power Automate fills from an apiKey security definition: what the user
 * types is sent as the whole Authorization header, so the relay's scheme is typed with it.
 */
export function connectorProperties(): Json {
  return {
    properties: {
      connectionParameters: {
        api_key: {
          type: "securestring",
          uiDefinition: {
            displayName: "Relay token (Bearer …)",
            description: "Type Bearer, a space, then the relay token: the relay reads Authorization: Bearer <token>.",
            tooltip: "The relay token from RELAY_TOKENS or the relay's first start, after the word Bearer and a space",
            constraints: { tabIndex: 2, clearText: false, required: "true" },
          },
        },
      },
      iconBrandColor: BRAND_COLOR,
      capabilities: [],
      publisher: "STR Underwriting",
      stackOwner: "STR Underwriting",
    },
  };
}
