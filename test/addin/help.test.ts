import fs from "node:fs";
import path from "node:path";
import { addinBuild } from "../support/addin-build";

/**
 * Help inside Excel: Excel's Insert Function dialog links each function to its `helpUrl`
 * (functions.json, from `@helpurl` in functions.ts), so every function has a section of its own in
 * help.html, with its signature and an example that calls it with a valid number of arguments.
 */
const ROOT = path.resolve(__dirname, "../..");
const source = fs.readFileSync(path.join(ROOT, "functions/functions.ts"), "utf8");
const help = fs.readFileSync(path.join(ROOT, "taskpane/help.html"), "utf8");
const DEV_HELP = "https://localhost:3000/help.html";

interface Parameter {
  name: string;
  optional?: boolean;
  repeating?: boolean;
}
interface FunctionMetadata {
  id: string;
  helpUrl?: string;
  parameters: Parameter[];
}

/** The JSDoc block of each @customfunction, by name. */
const blocks = new Map(
  [...source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*?@customfunction (\w+)[\s\S]*?)\*\//g)].map((m) => [
    m[2] as string,
    m[1] as string,
  ]),
);

/** The section of help.html whose id is `id`. */
function section(id: string): string | undefined {
  return new RegExp(`<section[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</section>`).exec(help)?.[1];
}

const anchorOf = (name: string) => `str-${name.toLowerCase()}`;
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

/** Top-level arguments of the first `=STR.NAME(…)` call in `example`. */
function argumentsOf(example: string, name: string): string[] | undefined {
  const start = example.indexOf(`=STR.${name}(`);
  if (start < 0) return undefined;
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (const ch of example.slice(start + `=STR.${name}(`.length)) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === "(") depth++;
    if (!quoted && ch === ")" && depth-- === 0) break;
    if (!quoted && depth === 0 && ch === ",") {
      args.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) args.push(current.trim());
  return args;
}

test("functions.ts declares the twelve functions", () => {
  expect([...blocks.keys()].sort()).toEqual(
    [
      "ARB",
      "BUY",
      "CARD",
      "COHOST",
      "COMPS",
      "ENHANCE",
      "MAXBID",
      "MONTHLY",
      "OWNED",
      "PROJECTION",
      "SENSITIVITY",
      "WHATIF",
    ].sort(),
  );
});

test.each([...blocks.keys()])("STR.%s has @helpurl pointing at its own section of help.html", (name) => {
  const block = blocks.get(name) as string;
  expect(block).toMatch(new RegExp(`@helpurl ${DEV_HELP.replace(/\./g, "\\.")}#${anchorOf(name)}\\s`));
});

test.each([...blocks.keys()])("help.html has a section for STR.%s with its signature and an example", (name) => {
  const body = section(anchorOf(name));
  expect(body).toBeDefined();
  expect(text(body as string)).toContain(`STR.${name}(`);
  const example = /class="example"[^>]*>([\s\S]*?)<\/p>/.exec(body as string)?.[1];
  expect(text(example ?? "")).toMatch(new RegExp(`Example: =STR\\.${name}\\(`));
});

describe("the built functions.json", () => {
  let functions: FunctionMetadata[];
  beforeAll(async () => {
    const dir = await addinBuild();
    functions = JSON.parse(fs.readFileSync(path.join(dir, "functions.json"), "utf8")).functions;
  }, 180_000);

  test("carries every function's help URL (the metadata plugin copies @helpurl as helpUrl)", () => {
    expect(functions.map((f) => [f.id, f.helpUrl])).toEqual(
      functions.map((f) => [f.id, `${DEV_HELP}#${anchorOf(f.id)}`]),
    );
  });

  test("each help example calls its function with a number of arguments the function takes", () => {
    for (const f of functions) {
      const example = text(/class="example"[^>]*>([\s\S]*?)<\/p>/.exec(section(anchorOf(f.id)) ?? "")?.[1] ?? "");
      const args = argumentsOf(example, f.id) ?? [];
      // The invocation is Excel's, not an argument.
      const params = f.parameters;
      const required = params.filter((p) => !p.optional && !p.repeating).length;
      const most = params.some((p) => p.repeating) ? Infinity : params.length;
      expect({ id: f.id, ok: args.length >= required && args.length <= most, args }).toEqual({
        id: f.id,
        ok: true,
        args,
      });
    }
  });
});
