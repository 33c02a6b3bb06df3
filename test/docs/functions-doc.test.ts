import fs from "node:fs";
import path from "node:path";
import { FIELD_CATALOGUE } from "../../src/contract";
import { SENSITIVITY_METRIC_UNITS } from "../../src/inputs";

/** docs/functions.md lists SENSITIVITY's metrics: exactly the catalogue's money, percent and ratio fields. */
const doc = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "functions.md"), "utf8");

function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/functions.md has no section "${title}"`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

test("SENSITIVITY's metrics are every money, percent and ratio field, and nothing else", () => {
  const metricUnits = new Set<string>(SENSITIVITY_METRIC_UNITS);
  const listed = [...section("SENSITIVITY's metrics").matchAll(/`([\w.]+)`/g)]
    .map((m) => m[1])
    .filter((p) => FIELD_CATALOGUE.some((f) => f.path === p));
  const expected = FIELD_CATALOGUE.filter((f) => metricUnits.has(f.unit)).map((f) => f.path);
  expect([...listed].sort()).toEqual([...expected].sort());
  expect(new Set(listed).size).toBe(listed.length);
});

test("Percentages says how 0 < x ≤ 1 and a %-formatted 100 % are read", () => {
  const text = section("Percentages");
  expect(text).toContain("0 < x < 1 is a fraction");
  expect(text).toContain("**Exactly 1** is 1 % in every percent argument and column");
});
