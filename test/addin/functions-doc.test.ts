import fs from "node:fs";
import path from "node:path";
import { FIELD_CATALOGUE } from "../../src/contract";

/** docs/functions.md is the users' reference: it must name every function and every field. */
const doc = fs.readFileSync(path.join(__dirname, "../../docs/functions.md"), "utf8");
const source = fs.readFileSync(path.join(__dirname, "../../functions/functions.ts"), "utf8");

test("every STR function in functions.ts is documented with its signature", () => {
  const names = [...source.matchAll(/@customfunction (\w+)/g)].map((m) => m[1]);
  expect(names.length).toBeGreaterThanOrEqual(9);
  for (const name of names) expect(doc).toContain(`STR.${name}(`);
});

test("every field of the catalogue is in the fields table, with its label", () => {
  for (const f of FIELD_CATALOGUE)
    expect(doc).toMatch(
      // Prettier pads table cells: any run of spaces before the next column.
      new RegExp(`\\| \`${f.path.replace(".", "\\.")}\` +\\| ${f.label.replace(/[()&]/g, (c) => `\\${c}`)}`),
    );
});
