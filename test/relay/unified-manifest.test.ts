import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";
import { generateCustomFunctionsMetadata } from "custom-functions-metadata";
import { addinIdFor, functionsMetadataFor, manifestFor } from "../../src/relay/addin/addin-files";
import { ACCENT_COLOR } from "../../src/relay/addin/deployment";
import { PACKAGE_ICONS, UNIFIED_MANIFEST_VERSION, unifiedManifestFor } from "../../src/relay/addin/unified-manifest";
import { TestRelay, startRelay } from "../support/relay";

/**
 * The unified manifest (GET /manifest.json): valid against the Microsoft 365 app manifest's
 * published JSON schema (the one @microsoft/app-manifest carries, Microsoft's own package, in the
 * version the manifest names), and made from the same facts as the XML manifest the relay serves.
 */

const ROOT = path.resolve(__dirname, "..", "..");
const PUBLIC_URL = "https://relay.example.com";
const SOURCE_XML = fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8");

function schemaValidator() {
  const file = require.resolve(
    `@microsoft/app-manifest/build/json-schemas/teams/v${UNIFIED_MANIFEST_VERSION}/MicrosoftTeams.schema.json`,
  );
  const ajv = new AjvDraft04({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(JSON.parse(fs.readFileSync(file, "utf8")) as object);
}

/** functions.json as the build writes it (the same generator the webpack plugin runs), help links moved. */
async function functionsJson(): Promise<string> {
  const { metadataJson, errors } = await generateCustomFunctionsMetadata([
    path.join(ROOT, "functions", "functions.ts"),
  ]);
  expect(errors).toEqual([]);
  return functionsMetadataFor(metadataJson, PUBLIC_URL);
}

type Manifest = {
  id: string;
  name: { short: string; full: string };
  validDomains: string[];
  extensions: {
    requirements: { capabilities: { name: string; minVersion: string }[] };
    runtimes: {
      code: { page: string; script: string };
      lifetime: string;
      customFunctions: {
        functions: { id: string; helpUrl?: string }[];
        namespace: { id: string };
        metadataUrl: string;
      };
    }[];
  }[];
};

describe("the unified manifest", () => {
  let xml: string;
  let manifest: Manifest;
  beforeAll(async () => {
    xml = manifestFor(SOURCE_XML, PUBLIC_URL, { deploymentName: "staging" });
    manifest = unifiedManifestFor(xml, await functionsJson()) as unknown as Manifest;
  });

  test("validates against the app manifest schema of the version it names", () => {
    const validate = schemaValidator();
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect((manifest as unknown as { manifestVersion: string }).manifestVersion).toBe(UNIFIED_MANIFEST_VERSION);
  });

  test("a manifest missing what the schema requires is refused (so the check above can fail)", () => {
    const validate = schemaValidator();
    const broken = structuredClone(manifest) as unknown as Record<string, unknown>;
    delete broken.developer;
    expect(validate(broken)).toBe(false);
  });

  test("Id, names and every URL are the XML manifest's: the deployment's Id, its name, the public URL", () => {
    expect(manifest.id).toBe(addinIdFor(PUBLIC_URL));
    expect(manifest.id).toBe(/<Id>([^<]+)<\/Id>/.exec(xml)?.[1]);
    expect(manifest.name.full).toBe("STR Underwriting (staging)");
    const urls = JSON.stringify(manifest).match(/https?:\/\/[^"]+/g) ?? [];
    const ours = urls.filter((u) => !u.startsWith("https://developer.microsoft.com/json-schemas/"));
    expect(ours.length).toBeGreaterThan(10);
    expect(ours.filter((u) => !u.startsWith(`${PUBLIC_URL}/`) && u !== PUBLIC_URL)).toEqual([]);
    expect(manifest.validDomains).toEqual([PUBLIC_URL]);
  });

  test("one long-lived shared runtime runs the pane and the functions, as in the XML's Runtimes", () => {
    const [runtime] = manifest.extensions[0]?.runtimes ?? [];
    expect(runtime?.lifetime).toBe("long");
    expect(runtime?.code).toEqual({ page: `${PUBLIC_URL}/taskpane.html`, script: `${PUBLIC_URL}/functions.js` });
    expect(runtime?.customFunctions.metadataUrl).toBe(`${PUBLIC_URL}/functions.json`);
    expect(runtime?.customFunctions.namespace.id).toBe("STR");
  });

  test("the functions are functions.json's, help links included; the requirement sets are the XML's", async () => {
    const metadata = JSON.parse(await functionsJson()) as { functions: { id: string; helpUrl: string }[] };
    const functions = manifest.extensions[0]?.runtimes[0]?.customFunctions.functions ?? [];
    expect(functions.map((f) => [f.id, f.helpUrl])).toEqual(metadata.functions.map((f) => [f.id, f.helpUrl]));
    const sets = [...SOURCE_XML.matchAll(/<Set Name="([^"]+)" MinVersion="([^"]+)"/g)].map(([, name, minVersion]) => ({
      name,
      minVersion,
    }));
    expect(manifest.extensions[0]?.requirements.capabilities).toEqual(sets);
  });

  test("the package's icons are in assets/ at the sizes the schema describes, and the accent is the icons' tile", () => {
    const size = (file: string) => {
      const png = fs.readFileSync(path.join(ROOT, "assets", file));
      return [png.readUInt32BE(16), png.readUInt32BE(20)];
    };
    expect(size(PACKAGE_ICONS.color)).toEqual([192, 192]);
    expect(size(PACKAGE_ICONS.outline)).toEqual([32, 32]);
    expect((manifest as unknown as { accentColor: string }).accentColor).toBe(ACCENT_COLOR);
  });
});

describe("GET /manifest.json", () => {
  let dist: string;
  let t: TestRelay;
  beforeAll(async () => {
    // A stand-in for dist/ with the two files the manifests are made from: no webpack build needed.
    dist = fs.mkdtempSync(path.join(os.tmpdir(), "str-unified-manifest-"));
    fs.copyFileSync(path.join(ROOT, "manifest.xml"), path.join(dist, "manifest.xml"));
    const { metadataJson } = await generateCustomFunctionsMetadata([path.join(ROOT, "functions", "functions.ts")]);
    fs.writeFileSync(path.join(dist, "functions.json"), metadataJson);
    t = await startRelay({ RELAY_PUBLIC_URL: PUBLIC_URL }, { addinDir: dist });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test("is served without a token, the same manifest as made from the served XML and functions.json", async () => {
    const get = (url: string) => t.relay.app.inject({ method: "GET", url });
    const r = await get("/manifest.json");
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(r.json()).toEqual(
      unifiedManifestFor((await get("/manifest.xml")).body, (await get("/functions.json")).body),
    );
    expect(r.json().id).toBe(addinIdFor(PUBLIC_URL));
  });

  test("answers 404 STR_NOT_FOUND, saying to build, where the add-in is not built", async () => {
    const bare = await startRelay({ RELAY_PUBLIC_URL: PUBLIC_URL }, { addinDir: "/nonexistent-dist" });
    try {
      const r = await bare.relay.app.inject({ method: "GET", url: "/manifest.json" });
      expect(r.statusCode).toBe(404);
      expect(r.json().error).toMatchObject({ code: "STR_NOT_FOUND", message: expect.stringMatching(/npm run build/) });
    } finally {
      await bare.close();
    }
  });
});
