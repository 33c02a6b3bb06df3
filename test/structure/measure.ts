import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/*
 * Measures source files with the TypeScript compiler's own parser, so a function is what the
 * language says it is: declarations, methods, constructors, accessors, function expressions and
 * arrow functions, each from its first line to its last (nested functions count in their parent).
 * Data tables aside: the lines inside a literal that holds only values (an object or array with no
 * function or call in it, a SQL or other template string) do not count; the line that opens it does.
 */

export const ROOT = path.resolve(__dirname, "../..");

export interface FunctionSize {
  /** Repository-relative path, with forward slashes. */
  file: string;
  /** The function's name as a reader would search for it: `mountScreen`, `Batcher.flush`, `register callback`. */
  name: string;
  /** First line, 1-based. */
  line: number;
  /** Lines, data tables aside. */
  lines: number;
}

/** The TypeScript files under `dirs` (repository-relative), declaration files aside. */
export function sourceFiles(...dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(rel);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}

export function parse(file: string, text = fs.readFileSync(path.join(ROOT, file), "utf8")): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** Lines in the file, as `wc -l` counts them. */
export function fileLines(file: string): number {
  return fs.readFileSync(path.join(ROOT, file), "utf8").split("\n").length - 1;
}

/** The functions of a file, or of `text` given as that file. */
export function functionSizes(file: string, text?: string): FunctionSize[] {
  const sf = parse(file, text);
  const out: FunctionSize[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const line = lineOf(node.getStart(sf));
      const lines = lineOf(node.getEnd()) - line + 1 - dataLines(node.body, sf);
      out.push({ file, name: functionName(node, sf), line, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The longest function of a file, or undefined when it has none. */
export function longestFunction(file: string): FunctionSize | undefined {
  return functionSizes(file).reduce<FunctionSize | undefined>((a, b) => (a && a.lines >= b.lines ? a : b), undefined);
}

/** Lines inside the outermost data literals under `node`, their opening lines aside. */
function dataLines(node: ts.Node, sf: ts.SourceFile): number {
  if (isDataLiteral(node)) {
    const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    return sf.getLineAndCharacterOfPosition(node.getEnd()).line - first;
  }
  let sum = 0;
  ts.forEachChild(node, (child) => {
    if (!ts.isFunctionLike(child)) sum += dataLines(child, sf);
  });
  return sum;
}

function isDataLiteral(node: ts.Node): boolean {
  if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node)) return true;
  if (ts.isTemplateExpression(node) || ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node))
    return !containsCode(node);
  return false;
}

/** Whether a function, a call or a `new` is somewhere inside. */
function containsCode(node: ts.Node): boolean {
  return (
    ts.forEachChild(
      node,
      (child) =>
        ts.isFunctionLike(child) || ts.isCallExpression(child) || ts.isNewExpression(child) || containsCode(child),
    ) ?? false
  );
}

function functionName(node: ts.Node, sf: ts.SourceFile): string {
  const own = (node as ts.FunctionLikeDeclaration).name;
  const ownName =
    own && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own)) ? own.text : undefined;
  if (ts.isConstructorDeclaration(node)) return `${className(node)}.constructor`;
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const owner = ts.isClassLike(node.parent) ? className(node) : undefined;
    return owner ? `${owner}.${ownName ?? "?"}` : (ownName ?? "?");
  }
  if (ownName) return ownName;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  if (ts.isCallExpression(parent)) return `${calleeName(parent.expression, sf)} callback`;
  return `function at line ${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
}

function className(node: ts.Node): string {
  const owner = node.parent as ts.ClassLikeDeclaration;
  return owner.name?.text ?? "class";
}

function calleeName(expression: ts.Expression, sf: ts.SourceFile): string {
  return ts.isPropertyAccessExpression(expression) ? expression.name.text : expression.getText(sf).slice(0, 40);
}

/**
 * Where a file's opening comment documents its first statement: a JSDoc block separated from the
 * statement by a blank line, or one of two blocks on it. A file's comment is a plain block.
 */
export function openingDocAttached(file: string, text?: string): number | undefined {
  const sf = parse(file, text);
  const first = sf.statements.find((s) => !ts.isImportDeclaration(s));
  const docs = (first as { jsDoc?: ts.JSDoc[] } | undefined)?.jsDoc ?? [];
  const last = docs.at(-1);
  if (!first || !last) return undefined;
  const separated = sf.text.slice(last.end, first.getStart(sf)).includes("\n\n");
  return docs.length > 1 || separated ? sf.getLineAndCharacterOfPosition(docs[0]!.getStart(sf)).line + 1 : undefined;
}
