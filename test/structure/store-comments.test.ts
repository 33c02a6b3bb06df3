import ts from "typescript";
import { openingDocAttached, parse, sourceFiles } from "./measure";

/*
 * The comment rules of docs/architecture.md for src/relay/store: a comment says why, and figures
 * (sizes, durations) belong in benchmark output and commit messages, where they can be kept true;
 * a file's opening comment is a plain block, not the documentation of its first export.
 */

/** A size or a duration measured: "17 kB", "40 µs", "20 ms". */
const FIGURE = /\d[\d.,]*\s*(kB|µs|ms)\b/g;

/** Each figure in a comment, with its own line. */
function figuresIn(comment: { line: number; text: string }): string[] {
  return [...comment.text.matchAll(FIGURE)].map(
    (m) => `${comment.line + comment.text.slice(0, m.index).split("\n").length - 1} ${m[0]}`,
  );
}

/** The comments of a file, and the SQL comments (`-- …`) inside its strings, with their lines. */
function commentsOf(file: string, text?: string): { line: number; text: string }[] {
  const sf = parse(file, text);
  const seen = new Map<number, string>();
  const visit = (node: ts.Node) => {
    const ranges = [
      ...(ts.getLeadingCommentRanges(sf.text, node.pos) ?? []),
      ...(ts.getTrailingCommentRanges(sf.text, node.end) ?? []),
    ];
    for (const r of ranges) seen.set(r.pos, sf.text.slice(r.pos, r.end));
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      const start = node.getStart(sf);
      let offset = 0;
      for (const line of node.getText(sf).split("\n")) {
        const at = line.indexOf("--");
        if (at >= 0) seen.set(start + offset + at, line.slice(at));
        offset += line.length + 1;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...seen].map(([pos, body]) => ({ line: sf.getLineAndCharacterOfPosition(pos).line + 1, text: body }));
}

describe("comments in src/relay/store", () => {
  const files = sourceFiles("src/relay/store");

  test("a file's opening comment does not document its first statement", () => {
    const attached = files
      .map((file) => ({ file, line: openingDocAttached(file) }))
      .filter((f) => f.line !== undefined)
      .map((f) => `${f.file}:${f.line}`);
    expect(attached).toEqual([]);
  });

  test("no comment logs a measurement", () => {
    const figures = files.flatMap((file) =>
      commentsOf(file)
        .flatMap(figuresIn)
        .map((figure) => `${file}:${figure}`),
    );
    expect(figures).toEqual([]);
  });
});

describe("the comment reader", () => {
  test("finds code comments and SQL comments in strings, and nothing else", () => {
    const source = [
      "// one 2 kB", // 1
      "const a = 1; // two 3 ms", // 2
      "/* three 4 µs */", // 3
      "const sql = `", // 4
      "  -- four 5 kB", // 5
      "  SELECT 1`;", // 6
      'const s = "6 ms";', // 7: a string, not a comment
      "",
    ].join("\n");
    const found = commentsOf("x.ts", source)
      .flatMap(figuresIn)
      .sort((x, y) => parseInt(x) - parseInt(y));
    expect(found).toEqual(["1 2 kB", "2 3 ms", "3 4 µs", "5 5 kB"]);
  });
});
