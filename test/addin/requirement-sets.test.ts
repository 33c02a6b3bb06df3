import fs from "node:fs";
import path from "node:path";
import { OFFICE_APIS, OfficeApi, REQUIREMENT_SET_DOCS, RequirementSetName } from "./office-apis";
import { BundleScan, OfficeApiUse, ROOT, scanBundles } from "./office-api-scan";
import { parseXml, path as at, one } from "./xml";

/**
 * Which Excel builds run the add-in follows from the Office APIs its bundles use: the manifest's
 * <Requirements> turns away builds without them, and docs/install.md tells people which builds those
 * are. This holds the three together: an API from a higher set either raises both declarations or is
 * used only after `isSetSupported` for that set in the same file, with a fallback for older Excel.
 */

/** Compiling the bundles with Office's type declarations takes a while on a busy machine. */
const SCAN_TIMEOUT_MS = 180_000;

type Declared = Map<string, string>;

function manifestSets(): Declared {
  const app = parseXml(fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8"));
  const sets = one(app, "Requirements", "Sets");
  return new Map(
    at(sets, "Set").map((s) => [
      s.attributes.Name as string,
      s.attributes.MinVersion ?? (sets.attributes.DefaultMinVersion as string),
    ]),
  );
}

/** The table rows of docs/install.md's platform statement: | `ExcelApi` | 1.9 | … |. */
function installDocSets(): Declared {
  const doc = fs.readFileSync(path.join(ROOT, "docs/install.md"), "utf8");
  return new Map(
    [...doc.matchAll(/^\|\s*`(\w+)`\s*\|\s*(\d+\.\d+)\s*\|/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < Math.max(x!.length, y!.length); i++) {
    const d = (x![i] ?? 0) - (y![i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The requirement an API use puts on the manifest: none for the common API, for reading a value an
 * older Excel leaves out, or when the same file checks `isSetSupported` for the set (or a later
 * version of it) and so has a path for Excel without it.
 */
function requirementOf(use: OfficeApiUse, scan: BundleScan): OfficeApi | undefined {
  const api = OFFICE_APIS[use.api];
  if (!api?.version || (api.whenAbsent && use.access === "read")) return undefined;
  const guarded = scan.guards.some(
    (g) => g.file === use.file && g.set === api.set && compareVersions(g.version, api.version as string) >= 0,
  );
  return guarded ? undefined : api;
}

let scan: BundleScan;
beforeAll(() => {
  scan = scanBundles();
}, SCAN_TIMEOUT_MS);

test("the scan covers both bundles and the shared code they import, and no Node code", () => {
  expect(scan.files).toEqual(
    expect.arrayContaining([
      "functions/functions.ts",
      "functions/custom-function.ts",
      "taskpane/taskpane.ts",
      "src/client/relay-settings.ts",
      "src/sheet/cell-values.ts",
    ]),
  );
  expect(scan.files.filter((f) => /^src\/(relay|cli|sandbox)\//.test(f))).toEqual([]);
  expect(scan.uses.length).toBeGreaterThan(50);
});

test("every Office API the bundles use is in the table, and the table lists nothing they do not use", () => {
  const used = new Set(scan.uses.map((u) => u.api));
  const unlisted = [...used]
    .filter((api) => !(api in OFFICE_APIS))
    .map((api) => {
      const first = scan.uses.find((u) => u.api === api) as OfficeApiUse;
      return `${api} (${first.file}:${first.line}; @types says ${first.declaredApiSet ?? "no set"})`;
    });
  expect(unlisted).toEqual([]);
  expect(Object.keys(OFFICE_APIS).filter((api) => !used.has(api))).toEqual([]);
});

test("each table entry agrees with the [Api set] note Microsoft's type declarations give it", () => {
  const disagreements = new Set<string>();
  for (const use of scan.uses) {
    const api = OFFICE_APIS[use.api];
    if (!api || use.declaredApiSet === undefined) continue;
    // Notes read "ExcelApi 1.9", "SharedRuntime 1.1, Mailbox 1.10" or "ExcelApi 1.1 for get, 1.8 for set".
    const mentioned =
      api.version !== undefined &&
      use.declaredApiSet.includes(api.set) &&
      use.declaredApiSet.match(/\d+\.\d+/g)?.includes(api.version);
    if (!mentioned)
      disagreements.add(`${use.api}: table ${api.set} ${api.version ?? ""}, @types "${use.declaredApiSet}"`);
  }
  expect([...disagreements]).toEqual([]);
});

test("every requirement set in the table links to Microsoft's page for it", () => {
  const sets = new Set(Object.values(OFFICE_APIS).map((a) => a.set));
  for (const set of sets) expect(REQUIREMENT_SET_DOCS[set]).toMatch(/^https:\/\/learn\.microsoft\.com\//);
});

test("manifest.xml and docs/install.md declare the same requirement sets", () => {
  const manifest = manifestSets();
  expect(manifest.get("SharedRuntime")).toBe("1.1");
  expect(Object.fromEntries(installDocSets())).toEqual(Object.fromEntries(manifest));
});

test("no API needs a requirement set above the declared one unless its file checks isSetSupported for that set first", () => {
  const declared = manifestSets();
  // One line per API and file: its first use there.
  const unmet = new Map<string, string>();
  for (const use of scan.uses) {
    const api = requirementOf(use, scan);
    const floor = api && declared.get(api.set);
    if (
      !api ||
      (floor !== undefined && compareVersions(api.version as string, floor) <= 0) ||
      unmet.has(`${use.api} ${use.file}`)
    )
      continue;
    const need = `${api.set} ${api.version}, above the declared ${floor ?? "(none)"}`;
    unmet.set(
      `${use.api} ${use.file}`,
      `${use.file}:${use.line} ${use.api} needs ${need}, and the file never checks isSetSupported("${api.set}", "${api.version}")`,
    );
  }
  expect([...unmet.values()]).toEqual([]);
});

test("each declared version is the highest the unguarded code needs, so no Excel that could run it is turned away", () => {
  const needed = new Map<RequirementSetName, string>();
  for (const use of scan.uses) {
    const api = requirementOf(use, scan);
    if (!api?.version) continue;
    const current = needed.get(api.set);
    if (current === undefined || compareVersions(api.version, current) > 0) needed.set(api.set, api.version);
  }
  expect(Object.fromEntries(manifestSets())).toEqual(Object.fromEntries(needed));
});
