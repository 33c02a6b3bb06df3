import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { BUILD_ENV_SECRETS, addinBuild } from "../support/addin-build";

/**
 * The production build (`webpack --mode production`, as `npm run build` runs it; see
 * test/support/addin-build.ts): what the relay serves and what Excel loads from it.
 */

const ROOT = path.resolve(__dirname, "../..");
const OFFICE_JS = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";

let out = "";

beforeAll(async () => {
  out = await addinBuild();
}, 180_000);

const read = (file: string) => fs.readFileSync(path.join(out, file), "utf8");

/** What each function's parameters must be in functions.json: name, and whether Excel may omit it. */
const SIGNATURES: Record<string, [name: string, optional: boolean][]> = {
  BUY: [
    ["location", false],
    ["purchasePrice", false],
    ["bedrooms", false],
    ["bathrooms", false],
    ["guests", false],
    ["options", true],
    ["fields", true],
  ],
  ARB: [
    ["location", false],
    ["monthlyRent", false],
    ["bedrooms", false],
    ["bathrooms", false],
    ["guests", false],
    ["options", true],
    ["fields", true],
  ],
  OWNED: [
    ["location", false],
    ["purchasePrice", false],
    ["downPaymentPct", false],
    ["interestRatePct", false],
    ["mortgageYears", false],
    ["yearsRemaining", false],
    ["bedrooms", false],
    ["bathrooms", false],
    ["guests", false],
    ["options", true],
    ["fields", true],
  ],
  COHOST: [
    ["location", false],
    ["bedrooms", false],
    ["bathrooms", false],
    ["guests", false],
    ["commissionPct", true],
    ["options", true],
    ["fields", true],
  ],
  ENHANCE: [
    ["analysisId", false],
    ["aiComps", true],
    ["aiExpenses", true],
    ["fields", true],
  ],
  COMPS: [
    ["analysisId", false],
    ["maxRows", true],
  ],
  MONTHLY: [["analysisId", false]],
  WHATIF: [
    ["analysisId", false],
    ["purchasePrice", true],
    ["downPaymentPct", true],
    ["interestRatePct", true],
    ["mortgageYears", true],
    ["scenario", true],
    ["fields", true],
  ],
  SENSITIVITY: [
    ["analysisId", false],
    ["rowVariable", false],
    ["rowValues", false],
    ["columnVariable", false],
    ["columnValues", false],
    ["metric", false],
  ],
  MAXBID: [
    ["analysisId", false],
    ["metric", false],
    ["target", false],
    ["scenario", true],
    ["downPaymentPct", true],
    ["interestRatePct", true],
    ["mortgageYears", true],
  ],
  PROJECTION: [
    ["analysisId", false],
    ["years", false],
    ["appreciationPct", true],
    ["revenueGrowthPct", true],
    ["expenseGrowthPct", true],
    ["sellingCostPct", true],
    ["purchasePrice", true],
    ["downPaymentPct", true],
    ["interestRatePct", true],
    ["mortgageYears", true],
  ],
  CARD: [
    ["strategy", false],
    ["location", false],
    ["values", false],
  ],
};
/** Parameters that take a range (or a value Excel wraps as [[value]]). */
const MATRIX = new Set(["location", "options", "fields", "rowValues", "columnValues", "values"]);
/** Parameters Excel repeats (STR.CARD takes its strategy's values one after another). */
const REPEATING = new Set(["values"]);

interface FunctionMetadata {
  id: string;
  name: string;
  description?: string;
  options?: { cancelable?: boolean; stream?: boolean };
  parameters: { name: string; description?: string; optional?: boolean; dimensionality?: string; type?: string }[];
  result: { dimensionality?: string };
}

describe("the production build", () => {
  test("taskpane.html loads office.js from Microsoft's CDN, then both bundles (one shared runtime)", () => {
    const html = read("taskpane.html");
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc=["']?([^"' >]+)/g)].map((m) => m[1]);
    expect(scripts).toEqual([OFFICE_JS, "functions.js", "taskpane.js"]);
    // Deferred bundles run after office.js has loaded, whatever their order in the document.
    expect(html).toMatch(/<script\b[^>]*\bdefer\b[^>]*src=["']?functions\.js/);
    expect(html).toMatch(/<main\b[^>]*id=["']?app\b/);
    expect(html).toMatch(/<html\b[^>]*lang=["']?en/);
  });

  test("functions.js registers every function (the plugin appends the associate calls)", () => {
    const js = read("functions.js");
    for (const id of Object.keys(SIGNATURES)) expect(js).toContain(`CustomFunctions.associate("${id}",`);
    expect(js.match(/CustomFunctions\.associate\(/g)).toHaveLength(Object.keys(SIGNATURES).length);
  });

  test("functions.json lists exactly the STR functions, cancelable, each described", () => {
    const { functions } = JSON.parse(read("functions.json")) as { functions: FunctionMetadata[] };
    expect(functions.map((f) => f.id).sort()).toEqual(Object.keys(SIGNATURES).sort());
    for (const f of functions) {
      expect(f.name).toBe(f.id);
      expect(f.description).toMatch(/^[A-Z].{20,}\.$/);
      expect(f.options).toEqual({ cancelable: true });
      expect(f.result.dimensionality).toBe("matrix");
    }
  });

  test.each(Object.entries(SIGNATURES))(
    "STR.%s: parameters in order, with descriptions, types and optional flags",
    (id, signature) => {
      const { functions } = JSON.parse(read("functions.json")) as { functions: FunctionMetadata[] };
      const f = functions.find((x) => x.id === id) as FunctionMetadata;
      expect(f.parameters.map((p) => [p.name, p.optional === true])).toEqual(signature);
      for (const p of f.parameters) {
        // Short enough to read in Excel's argument tooltip and Insert Function dialog.
        expect(p.description).toMatch(/^.{10,255}$/u);
        expect(p.dimensionality === "matrix").toBe(MATRIX.has(p.name));
        if (MATRIX.has(p.name)) expect(p.type).toBe("any");
        expect((p as { repeating?: boolean }).repeating === true).toBe(REPEATING.has(p.name));
      }
    },
  );

  test("the icons, the logo, the help page, the stylesheet and the manifest (URLs as written) are in the output", () => {
    for (const size of [16, 32, 64, 80, 128])
      expect(fs.existsSync(path.join(out, "assets", `icon-${size}.png`))).toBe(true);
    expect(fs.existsSync(path.join(out, "assets", "logo.png"))).toBe(true);
    for (const name of ["BUY", "MAXBID", "PROJECTION"])
      expect(read("help.html")).toMatch(new RegExp(`STR\\.${name}\\(`));
    expect(read("taskpane.css").length).toBeGreaterThan(100);
    expect(read("manifest.xml")).toBe(fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8"));
  });

  test("no service key or relay token reaches the output, though the build ran with them in its environment", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(out);
    expect(files.length).toBeGreaterThan(5);
    const secrets = [...new Set(Object.values(BUILD_ENV_SECRETS))];
    for (const file of files) {
      const content = fs.readFileSync(file).toString("latin1");
      for (const secret of secrets)
        expect({ file: path.relative(out, file), leaks: content.includes(secret) }).toEqual({
          file: path.relative(out, file),
          leaks: false,
        });
    }
  });

  test("the bundles import no Node module and ship no source maps", () => {
    const files = fs.readdirSync(out);
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    const names = builtinModules.filter((m) => !m.startsWith("_")).map((m) => m.replace(/[/]/g, "\\/"));
    const nodeImport = new RegExp(
      `(?:require\\(|from\\s*|import\\()\\s*["'](?:node:[\\w/]+|(?:${names.join("|")}))["']`,
    );
    for (const file of files.filter((f) => f.endsWith(".js"))) {
      expect({ file, nodeImport: nodeImport.exec(read(file))?.[0] }).toEqual({ file, nodeImport: undefined });
    }
  });
});
