import fs from "node:fs";
import path from "node:path";

/**
 * No document or comment sends a reader to a file the repository does not have: every relative
 * link in a Markdown file (and the heading its #anchor names), every `docs/…` path and every bare
 * Markdown file name in the sources.
 */
const ROOT = path.join(__dirname, "..", "..");
const SKIP = new Set(["node_modules", "lib", "dist", "coverage", ".git", "test-results", ".relay-data"]);

function walk(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file, keep, out);
    else if (keep(file)) out.push(file);
  }
  return out;
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");
const markdown = walk(ROOT, (f) => f.endsWith(".md"));
const sources = walk(ROOT, (f) => /\.(ts|js|cjs|mjs)$/.test(f) && !f.endsWith(".d.ts"));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

test("every relative link in a Markdown file reaches a file, and a heading when it names one", () => {
  expect(markdown.map(rel)).toEqual(
    expect.arrayContaining(["README.md", "docs/cli.md", "docs/service/str-service-api.md"]),
  );
  const broken: string[] = [];
  for (const file of markdown) {
    const text = fs.readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target as string)) continue;
      const [where, anchor] = (target as string).split("#") as [string, string | undefined];
      const to = where === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(where));
      if (!fs.existsSync(to)) broken.push(`${rel(file)}: ${target} (no such file)`);
      else if (anchor && to.endsWith(".md") && !anchorsOf(to).has(anchor))
        broken.push(`${rel(file)}: ${target} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

test("every docs/… path and every Markdown file name a source file names exists", () => {
  const names = new Set(markdown.map((f) => path.basename(f)));
  const missing: string[] = [];
  for (const file of sources) {
    const text = fs.readFileSync(file, "utf8");
    for (const [docPath] of text.matchAll(/\bdocs\/[\w./-]*\w/g)) {
      if (!fs.existsSync(path.join(ROOT, docPath))) missing.push(`${rel(file)}: ${docPath}`);
    }
    for (const [name] of text.matchAll(/(?<![\w/.-])[\w-]+\.md\b/g)) {
      if (!names.has(name)) missing.push(`${rel(file)}: ${name}`);
    }
  }
  expect(missing).toEqual([]);
});
