import fs from "node:fs";
import path from "node:path";
import { FLAG_OPTIONS, HELP, SHORT_OPTIONS, VALUE_OPTIONS } from "../../src/cli/args";
import { EXIT } from "../../src/cli/run-command";
import { INPUT_FIELDS, STRATEGY_WORDS } from "../../src/inputs";
import { tableRows } from "../support/markdown";

/** docs/cli.md is held to the code's own tables, so an option, a column name or an exit code cannot be added without it. */
const ROOT = path.join(__dirname, "..", "..");
const doc = fs.readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8");
const section = (title: string) => {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/cli.md has no section "${title}"`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
};

describe("docs/cli.md", () => {
  test("lists every option in its Options table, as --help does", () => {
    const options = section("Options");
    for (const name of [...VALUE_OPTIONS, ...FLAG_OPTIONS]) {
      expect(options).toContain(`\`--${name}\``);
      expect(HELP).toContain(`--${name}`);
    }
    for (const short of Object.keys(SHORT_OPTIONS)) expect(options).toContain(`\`${short}\``);
  });

  test("lists every recognised column name, by field", () => {
    const columns = section("Columns it recognises");
    for (const [key, field] of Object.entries(INPUT_FIELDS)) {
      const row = tableRows(columns).find(([label, k]) => label === field.label && k === `\`${key}\``);
      expect(row).toBeDefined();
      for (const name of field.names) expect(row?.join("|")).toContain(`\`${name}\``);
    }
  });

  test("lists every strategy value with the strategy it means", () => {
    const strategies = section("Strategy values");
    for (const [word, op] of Object.entries(STRATEGY_WORDS)) {
      if (op === "enhance") continue; // a ENHANCE call's operation, not a strategy a row may have
      const row = tableRows(strategies).find(([first]) => first?.startsWith(`\`${op}\``));
      expect(row?.join("|")).toContain(`\`${word}\``);
    }
  });

  test("gives every exit code, including --dry-run's", () => {
    const codes = section("Exit codes");
    const rows = tableRows(codes);
    expect(rows[0]?.slice(1)).toEqual(["A run", "`--dry-run`"]);
    for (const code of Object.values(EXIT)) {
      const row = rows.find(([first]) => first === `\`${code}\``);
      expect(row?.[1]).toBeTruthy();
      expect(row?.[2]).toBeTruthy();
    }
  });

  test("is where bin/str-screen.js and --help point", () => {
    expect(fs.readFileSync(path.join(ROOT, "bin", "str-screen.js"), "utf8")).toContain("See docs/cli.md.");
    expect(HELP).toContain("docs/cli.md");
  });
});
