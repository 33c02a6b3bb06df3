import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { manifestFor } from "../../src/relay/addin/addin-files";
import { XmlElement, descendants, one, parseXml, path as at } from "./xml";

/**
 * manifest.xml, as written and as the relay serves it: valid against Microsoft's XSDs (offline, with
 * xmllint), and structurally right where the XSDs cannot see — the shared runtime, resource ids, URLs, icons.
 */

const ROOT = path.resolve(__dirname, "../..");
const SCHEMA = "../shared/schemas/office-addin-manifest/OfficeAppManifestV1_1.xsd";
/** `npm run validate`, byte for byte: the XSDs predate Runtimes, so its block is cut out by line. */
const VALIDATE = `sed '/<Runtimes>/,/<\\/Runtimes>/d' "$0" | xmllint --noout --schema ${SCHEMA} -`;
const PUBLIC_URL = "https://relay.example.com";

const source = fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8");
const served = manifestFor(source, PUBLIC_URL);
const staging = manifestFor(source, "https://staging.example.com", { deploymentName: "staging" });
const hasXmllint = spawnSync("xmllint", ["--version"]).status === 0;
if (!hasXmllint) {
  console.warn(
    "xmllint is not installed (apt-get install libxml2-utils): the manifest's XSD validation is SKIPPED; the structural checks still run.",
  );
}

/** Where each resource id points, by kind. */
function resources(app: XmlElement) {
  const res = one(app, "VersionOverrides", "Resources");
  const table = (group: string, item: string) =>
    new Map(at(res, group, item).map((e) => [e.attributes.id as string, e.attributes.DefaultValue as string]));
  return {
    images: table("bt:Images", "bt:Image"),
    urls: table("bt:Urls", "bt:Url"),
    shortStrings: table("bt:ShortStrings", "bt:String"),
    longStrings: table("bt:LongStrings", "bt:String"),
    all: res.children,
    element: res,
  };
}

function pngSize(file: string): { width: number; height: number } {
  const png = fs.readFileSync(file);
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe.each([
  { name: "manifest.xml as written", xml: source, base: "https://localhost:3000", title: "STR Underwriting (dev)" },
  {
    name: `manifest.xml as the relay serves it for ${PUBLIC_URL}`,
    xml: served,
    base: PUBLIC_URL,
    title: "STR Underwriting",
  },
  {
    name: "manifest.xml as a staging relay serves it (RELAY_DEPLOYMENT_NAME=staging)",
    xml: staging,
    base: "https://staging.example.com",
    title: "STR Underwriting (staging)",
  },
])("$name", ({ xml, base, title }) => {
  const app = parseXml(xml);
  const host = one(app, "VersionOverrides", "Hosts", "Host");
  const res = resources(app);
  const customFunctions = at(host, "AllFormFactors", "ExtensionPoint").find(
    (e) => e.attributes["xsi:type"] === "CustomFunctions",
  ) as XmlElement;

  (hasXmllint ? test : test.skip)("validates against the Office add-in XSDs (all but the Runtimes block)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-manifest-"));
    const file = path.join(dir, "manifest.xml");
    fs.writeFileSync(file, xml);
    try {
      const run = spawnSync("sh", ["-c", VALIDATE, file], { cwd: ROOT, encoding: "utf8" });
      expect(`${run.stderr}`.trim()).toBe("- validates");
      expect(run.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the Runtimes block sits on lines of its own, so validation cuts out exactly that block", () => {
    const lines = xml.split("\n");
    expect(lines.filter((l) => l.includes("<Runtimes>"))).toEqual([expect.stringMatching(/^\s*<Runtimes>\s*$/)]);
    expect(lines.filter((l) => l.includes("</Runtimes>"))).toEqual([expect.stringMatching(/^\s*<\/Runtimes>\s*$/)]);
    const start = lines.findIndex((l) => l.includes("<Runtimes>"));
    const end = lines.findIndex((l) => l.includes("</Runtimes>"));
    expect(end - start).toBe(2);
    expect(lines[start + 1]).toMatch(/^\s*<Runtime [^>]*\/>\s*$/);
  });

  test("one long-lived shared runtime: the task pane page, which is also the functions' page and the pane", () => {
    expect(at(app, "Requirements", "Sets", "Set").map((s) => s.attributes)).toContainEqual({
      Name: "SharedRuntime",
      MinVersion: "1.1",
    });
    const runtimes = at(host, "Runtimes", "Runtime");
    expect(runtimes).toHaveLength(1);
    const runtime = runtimes[0] as XmlElement;
    expect(runtime.attributes.lifetime).toBe("long");
    const resid = runtime.attributes.resid as string;
    expect(res.urls.get(resid)).toBe(`${base}/taskpane.html`);

    expect(one(customFunctions, "Page", "SourceLocation").attributes.resid).toBe(resid);
    expect(one(host, "DesktopFormFactor", "FunctionFile").attributes.resid).toBe(resid);
    expect(one(app, "DefaultSettings", "SourceLocation").attributes.DefaultValue).toBe(res.urls.get(resid));
    const action = descendants(host).find((e) => e.name === "Action") as XmlElement;
    expect(action.attributes["xsi:type"]).toBe("ShowTaskpane");
    expect(one(action, "SourceLocation").attributes.resid).toBe(resid);
  });

  test("custom functions: functions.js, functions.json and the STR namespace", () => {
    expect(res.urls.get(one(customFunctions, "Script", "SourceLocation").attributes.resid as string)).toBe(
      `${base}/functions.js`,
    );
    expect(res.urls.get(one(customFunctions, "Metadata", "SourceLocation").attributes.resid as string)).toBe(
      `${base}/functions.json`,
    );
    expect(res.shortStrings.get(one(customFunctions, "Namespace").attributes.resid as string)).toBe("STR");
  });

  test("a Home tab button opens the pane, with a group label and a tooltip", () => {
    const tab = one(host, "DesktopFormFactor", "ExtensionPoint", "OfficeTab");
    expect(tab.attributes.id).toBe("TabHome");
    const group = one(tab, "Group");
    expect(res.shortStrings.get(one(group, "Label").attributes.resid as string)).toBe(title);
    const button = one(group, "Control");
    expect(button.attributes["xsi:type"]).toBe("Button");
    expect(res.shortStrings.get(one(button, "Label").attributes.resid as string)).toBeTruthy();
    expect(res.longStrings.get(one(button, "Supertip", "Description").attributes.resid as string)).toMatch(/pane/);
  });

  test("every resid points at a resource, and resource ids are unique", () => {
    const ids = res.all.flatMap((group) => group.children.map((e) => e.attributes.id as string));
    expect(new Set(ids).size).toBe(ids.length);
    const referenced = descendants(app)
      .map((e) => e.attributes.resid)
      .filter((r): r is string => r !== undefined);
    expect(referenced.length).toBeGreaterThan(10);
    expect(referenced.filter((r) => !ids.includes(r))).toEqual([]);
  });

  test("every bt:Url and bt:Image is https on the add-in's origin", () => {
    const urls = [...res.urls.values(), ...res.images.values()];
    expect(urls.length).toBeGreaterThanOrEqual(7);
    for (const url of urls) expect(url.startsWith(`${base}/`)).toBe(true);
    for (const url of urls) expect(new URL(url).protocol).toBe("https:");
  });

  test("each URL is written once, under Resources, except where the schema wants a DefaultValue outside it", () => {
    const outside = descendants(app).filter((e) => !descendants(res.element).includes(e) && e !== res.element);
    const urlsOutside = outside.flatMap((e) => [
      ...Object.entries(e.attributes)
        // Namespace names are URIs, not URLs anything loads.
        .filter(([name, value]) => !name.startsWith("xmlns") && /^https?:/.test(value))
        .map(() => e.name),
      ...(/^\s*https?:/.test(e.text) ? [e.name] : []),
    ]);
    expect(urlsOutside.sort()).toEqual([
      "AppDomain",
      "HighResolutionIconUrl",
      "IconUrl",
      "SourceLocation",
      "SupportUrl",
    ]);
    const inside = [...res.urls.values(), ...res.images.values()];
    expect(new Set(inside).size).toBe(inside.length);
  });

  test("every icon it names exists in assets/ at its stated size", () => {
    const icons = [
      ...[...res.images.entries()].map(([id, url]) => ({ url, size: Number(/(\d+)x\1$/.exec(id)?.[1]) })),
      { url: one(app, "IconUrl").attributes.DefaultValue as string, size: 32 },
      { url: one(app, "HighResolutionIconUrl").attributes.DefaultValue as string, size: 64 },
    ];
    for (const { url, size } of icons) {
      expect(url.startsWith(`${base}/assets/`)).toBe(true);
      const file = path.join(ROOT, "assets", url.slice(`${base}/assets/`.length));
      expect(fs.existsSync(file)).toBe(true);
      expect(pngSize(file)).toEqual({ width: size, height: size });
    }
    const ribbonSizes = descendants(host)
      .filter((e) => e.name === "bt:Image")
      .map((e) => e.attributes.size);
    expect(new Set(ribbonSizes)).toEqual(new Set(["16", "32", "80"]));
  });

  test("a Workbook task pane app that can read and write the document, named for its deployment", () => {
    expect(app.attributes["xsi:type"]).toBe("TaskPaneApp");
    expect(one(app, "Hosts", "Host").attributes.Name).toBe("Workbook");
    expect(one(app, "Permissions").text).toBe("ReadWriteDocument");
    expect(one(app, "DisplayName").attributes.DefaultValue).toBe(title);
    // The dev add-in's fixed random Id (v4); a relay's is derived from its URL (v5).
    expect(one(app, "Id").text).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[45][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(one(app, "SupportUrl").attributes.DefaultValue).toBe(`${base}/help.html`);
  });
});

describe("the served manifest", () => {
  test("names no localhost URL", () => {
    expect(served).not.toMatch(/localhost/);
  });

  test("differs from the source only in its URLs, its Id and its name", () => {
    const id = one(parseXml(served), "Id").text;
    expect(id).not.toBe(one(parseXml(source), "Id").text);
    expect(
      served
        .replaceAll(PUBLIC_URL, "https://localhost:3000")
        .replace(id, one(parseXml(source), "Id").text)
        .replaceAll('"STR Underwriting"', '"STR Underwriting (dev)"'),
    ).toBe(source);
  });

  test("production and staging relays serve different Ids, so one Excel can hold both", () => {
    expect(one(parseXml(staging), "Id").text).not.toBe(one(parseXml(served), "Id").text);
  });

  test("the files it names exist in the build's sources", () => {
    const app = parseXml(source);
    const res = resources(app);
    const built = ["taskpane.html", "functions.js", "functions.json", "help.html"];
    for (const url of res.urls.values()) expect(built).toContain(url.slice("https://localhost:3000/".length));
  });
});

test("`npm run validate` is the command this test runs", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  expect(pkg.scripts.validate).toBe(VALIDATE.replace('"$0"', "manifest.xml"));
  // And it passes on the file as committed (when xmllint is here to run it).
  if (hasXmllint) execFileSync("sh", ["-c", pkg.scripts.validate], { cwd: ROOT, stdio: "pipe" });
});
