import { ACCENT_COLOR } from "./deployment";

/*
 * The add-in's unified manifest (the Microsoft 365 app manifest, JSON), served beside the XML one
 * at GET /manifest.json. It is made from the XML manifest as the relay serves it (addin-files.ts:
 * its URLs already moved to RELAY_PUBLIC_URL, its Id and name the deployment's), and from
 * functions.json, so each fact keeps one source. The shape follows Microsoft's "Office Add-ins with
 * the unified app manifest for Microsoft 365" and the app manifest schema's extensions.runtimes
 * (a long-lived shared runtime with customFunctions); test/relay/unified-manifest.test.ts validates
 * it against that schema.
 */

export type Json = Record<string, unknown>;

/** 1.27: the first schema version whose custom functions take descriptions as long as functions.json's (1.26: 128 characters). */
export const UNIFIED_MANIFEST_VERSION = "1.27";

/** The app package's icons, beside manifest.json (the files are the relay's /assets/…). */
export const PACKAGE_ICONS = { color: "icon-192.png", outline: "icon-outline-32.png" };

/** functions.json's option names, and the manifest's where they differ. */
const FUNCTION_OPTIONS: Readonly<Record<string, string>> = {
  stream: "stream",
  volatile: "volatile",
  cancelable: "cancelable",
  requiresAddress: "requiresAddress",
  requiresParameterAddresses: "requiresParameterAddress",
};

interface FunctionMetadata {
  id: string;
  name: string;
  description?: string;
  helpUrl?: string;
  options?: Record<string, boolean>;
  parameters?: Json[];
  result?: { dimensionality?: string };
}

/** The unified manifest for the served XML manifest `xml` and its functions' metadata `functionsJson`. */
export function unifiedManifestFor(xml: string, functionsJson: string): Json {
  const read = xmlReader(xml);
  const name = read.attribute("DisplayName");
  const description = read.attribute("Description");
  const capabilities = [...xml.matchAll(/<Set Name="([^"]+)" MinVersion="([^"]+)"/g)].map(([, set, min]) => ({
    name: set,
    minVersion: min,
  }));
  const functions = (JSON.parse(functionsJson) as { functions: FunctionMetadata[] }).functions.map(customFunction);
  const icon = (size: number) => ({ size, url: read.resource(`Icon.${size}x${size}`) });
  const namespace = read.resource("Functions.Namespace");
  return {
    $schema: `https://developer.microsoft.com/json-schemas/teams/v${UNIFIED_MANIFEST_VERSION}/MicrosoftTeams.schema.json`,
    manifestVersion: UNIFIED_MANIFEST_VERSION,
    id: read.element("Id"),
    // The XML's four-part version; the app manifest takes three.
    version: read.element("Version").split(".").slice(0, 3).join("."),
    name: { short: name.length <= 30 ? name : name.slice(0, 30).trimEnd(), full: name },
    description: { short: shortDescription(description), full: description },
    developer: {
      name: read.element("ProviderName"),
      websiteUrl: read.attribute("SupportUrl"),
      privacyUrl: read.attribute("SupportUrl"),
      termsOfUseUrl: read.attribute("SupportUrl"),
    },
    icons: PACKAGE_ICONS,
    accentColor: ACCENT_COLOR,
    localizationInfo: { defaultLanguageTag: read.element("DefaultLocale").toLowerCase(), additionalLanguages: [] },
    // ReadWriteDocument, in the unified manifest's words.
    authorization: { permissions: { resourceSpecific: [{ name: "Document.ReadWrite.User", type: "Delegated" }] } },
    validDomains: [...xml.matchAll(/<AppDomain>([^<]+)<\/AppDomain>/g)].map(([, domain]) => unescapeXml(domain ?? "")),
    extensions: [
      {
        requirements: { capabilities, scopes: ["workbook"] },
        runtimes: [
          {
            requirements: { capabilities: capabilities.filter((c) => c.name === "SharedRuntime") },
            id: "SharedRuntime",
            type: "general",
            code: { page: read.resource("Taskpane.Url"), script: read.resource("Functions.Script.Url") },
            lifetime: "long",
            actions: [{ id: "ShowTaskpane", type: "openPage", pinnable: false }],
            customFunctions: {
              functions,
              namespace: { id: namespace, name: namespace },
              metadataUrl: read.resource("Functions.Metadata.Url"),
            },
          },
        ],
        ribbons: [ribbon(read, [icon(16), icon(32), icon(80)])],
        alternates: [
          {
            alternateIcons: {
              icon: { size: 32, url: read.attribute("IconUrl") },
              highResolutionIcon: { size: 64, url: read.attribute("HighResolutionIconUrl") },
            },
          },
        ],
        getStartedMessages: [
          {
            title: read.resource("GetStarted.Title"),
            description: read.resource("GetStarted.Description"),
            learnMoreUrl: read.resource("GetStarted.LearnMoreUrl"),
          },
        ],
      },
    ],
  };
}

function ribbon(read: XmlReader, icons: Json[]): Json {
  const label = read.resource("TaskpaneButton.Label");
  return {
    contexts: ["default"],
    tabs: [
      {
        builtInTabId: "TabHome",
        groups: [
          {
            id: "STR.Group",
            label: read.resource("Group.Label"),
            icons,
            controls: [
              {
                id: "STR.TaskpaneButton",
                type: "button",
                label,
                icons,
                supertip: { title: label, description: read.resource("TaskpaneButton.Tooltip") },
                actionId: "ShowTaskpane",
              },
            ],
          },
        ],
      },
    ],
  };
}

/** One function of functions.json as the manifest's extensionFunction: the options move up a level. */
function customFunction(f: FunctionMetadata): Json {
  const options = Object.fromEntries(
    Object.entries(f.options ?? {})
      .filter(([key]) => key in FUNCTION_OPTIONS)
      .map(([key, value]) => [FUNCTION_OPTIONS[key], value]),
  );
  return {
    id: f.id,
    name: f.name,
    ...(f.description ? { description: f.description } : {}),
    ...(f.helpUrl ? { helpUrl: f.helpUrl } : {}),
    parameters: f.parameters ?? [],
    result: { dimensionality: f.result?.dimensionality ?? "scalar" },
    ...options,
  };
}

/** The description's first clause, within the 80 characters the short description allows. */
function shortDescription(text: string): string {
  const clause = text.split(/[:.]/)[0]?.trim() ?? text;
  return clause.length <= 80 ? clause : `${clause.slice(0, 79).trimEnd()}…`;
}

interface XmlReader {
  element(tag: string): string;
  attribute(tag: string): string;
  resource(id: string): string;
}

/** Reads the values this manifest needs from the add-in's own XML manifest, failing on one it lacks. */
function xmlReader(xml: string): XmlReader {
  const found = (pattern: RegExp, what: string): string => {
    const match = pattern.exec(xml);
    if (!match?.[1]) throw new Error(`manifest.xml has no ${what} for the unified manifest`);
    return unescapeXml(match[1]);
  };
  return {
    element: (tag) => found(new RegExp(`<${tag}>([^<]+)</${tag}>`), `<${tag}>`),
    attribute: (tag) => found(new RegExp(`<${tag} DefaultValue="([^"]*)"`), `<${tag} DefaultValue>`),
    resource: (id) => found(new RegExp(`id="${id.replace(/\./g, "\\.")}" DefaultValue="([^"]*)"`), `resource ${id}`),
  };
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}
