import fs from "node:fs";
import path from "node:path";

/**
 * `npx str-relay` outside a checkout fetches whatever a registry holds under that name, and runs it
 * with the user's environment (STR_API_KEY among it). Every line the project shows a user runs its
 * own binaries: `npx --no-install …` in a checkout, the installed command elsewhere; and the
 * package carries a scoped name the project controls.
 */
const ROOT = path.join(__dirname, "..", "..");
const SKIP = new Set(["node_modules", "lib", "dist", "coverage", ".git", "test-results", ".relay-data", "test"]);

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file, out);
    else if (/\.(md|ts|js|cjs|mjs|html)$/.test(entry.name)) out.push(file);
  }
  return out;
}

describe("no doc line or printed hint fetches an unknown package", () => {
  const offenders = walk(ROOT)
    .map((file) => path.relative(ROOT, file).split(path.sep).join("/"))
    .filter((file) =>
      /\bnpx (?!--no-install )str-(relay|screen)\b/.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
    );

  test("every `npx str-relay` / `npx str-screen` says --no-install", () => {
    expect(offenders).toEqual([]);
  });

  test("the package's name is scoped, and its commands keep their names", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      name: string;
      bin: Record<string, string>;
    };
    expect(pkg.name).toBe("@str-underwriting/excel");
    expect(Object.keys(pkg.bin).sort()).toEqual(["str-relay", "str-screen"]);
  });
});
