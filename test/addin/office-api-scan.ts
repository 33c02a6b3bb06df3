import path from "node:path";
import ts from "typescript";

/**
 * Every Office API the add-in's two bundles use, found by the TypeScript checker rather than by
 * text: `range.getSpillingToRange()` is a use of Excel.Range.getSpillingToRange because its symbol
 * is declared there, however `range` was reached. Types written in annotations are not uses (they
 * cost nothing at run time); property reads, writes, calls and `new` are.
 */

export const ROOT = path.resolve(__dirname, "../..");
/** The bundles' entries, as webpack.config.js names them: the scan follows their imports. */
export const BUNDLE_ENTRIES = ["functions/functions.ts", "taskpane/taskpane.ts"];

/** The Office globals; a member of one reached through `globalThis` is a use too. */
const OFFICE_GLOBALS = new Set(["Office", "Excel", "OfficeRuntime", "CustomFunctions", "OfficeExtension"]);
/** Where the globals are declared. */
const OFFICE_TYPES = /[\\/]node_modules[\\/]@types[\\/](office-js|office-runtime|custom-functions-runtime)[\\/]/;

export interface OfficeApiUse {
  /** Qualified name as declared, e.g. "Excel.Range.getSpillingToRange". */
  api: string;
  /** Repository-relative path. */
  file: string;
  line: number;
  /** How the code touches it: a call (or `new`), an assignment to it, or a read. */
  access: "call" | "write" | "read";
  /** The `[Api set: …]` note of its declaration (or of the class declaring it) in @types, if any. */
  declaredApiSet: string | undefined;
}

/** A literal `isSetSupported("ExcelApi", "1.12")` call: the file checks that set before using it. */
export interface RequirementGuard {
  file: string;
  set: string;
  version: string;
}

export interface BundleScan {
  /** The repository's own source files in the bundles (none of node_modules). */
  files: string[];
  uses: OfficeApiUse[];
  guards: RequirementGuard[];
}

/** Compiles the bundles' sources as tsconfig.web.json does (browser types only) and walks them. */
export function scanBundles(entries: readonly string[] = BUNDLE_ENTRIES, root = ROOT): BundleScan {
  const program = ts.createProgram({
    rootNames: entries.map((e) => path.join(root, e)),
    options: webCompilerOptions(root),
  });
  const checker = program.getTypeChecker();
  const scan: BundleScan = { files: [], uses: [], guards: [] };
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || !isOwnSource(source.fileName, root)) continue;
    const file = path.relative(root, source.fileName).split(path.sep).join("/");
    scan.files.push(file);
    const visit = (node: ts.Node): void => {
      recordGuard(node, file, scan.guards);
      for (const use of usesAt(node, checker)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        scan.uses.push({ ...use, file, line: line + 1, access: accessOf(node) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return scan;
}

function webCompilerOptions(root: string): ts.CompilerOptions {
  const configFile = path.join(root, "tsconfig.web.json");
  const read = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
  if (read.error)
    throw new Error(`tsconfig.web.json: ${ts.flattenDiagnosticMessageText(read.error.messageText, "\n")}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, { noEmit: true }, configFile);
  return parsed.options;
}

function isOwnSource(fileName: string, root: string): boolean {
  const relative = path.relative(root, fileName);
  return !relative.startsWith("..") && !relative.split(/[\\/]/).includes("node_modules");
}

type Found = Pick<OfficeApiUse, "api" | "declaredApiSet">;

function usesAt(node: ts.Node, checker: ts.TypeChecker): Found[] {
  if (!ts.isPropertyAccessExpression(node)) return [];
  const symbol = officeSymbol(checker.getSymbolAtLocation(node.name), checker);
  if (symbol) return [{ api: checker.getFullyQualifiedName(symbol), declaredApiSet: apiSetNote(symbol) }];
  return untypedGlobalMembers(node, checker);
}

/** The symbol, when Office's type declarations declare it. */
function officeSymbol(symbol: ts.Symbol | undefined, checker: ts.TypeChecker): ts.Symbol | undefined {
  const resolved = symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const declarations = resolved?.declarations ?? [];
  return declarations.length > 0 && declarations.every((d) => OFFICE_TYPES.test(d.getSourceFile().fileName))
    ? resolved
    : undefined;
}

/**
 * `(globalThis as { OfficeRuntime?: { storage?: S } }).OfficeRuntime` reaches a global through a
 * type written on the spot, which the checker cannot tie to Office's declarations: the members
 * that type declares are what the code goes on to use, so each counts as a use.
 */
function untypedGlobalMembers(node: ts.PropertyAccessExpression, checker: ts.TypeChecker): Found[] {
  const name = node.name.text;
  if (!OFFICE_GLOBALS.has(name)) return [];
  const type = checker.getNonNullableType(checker.getTypeAtLocation(node));
  return type.getProperties().map((member) => ({ api: `${name}.${member.getName()}`, declaredApiSet: undefined }));
}

/**
 * The `[Api set: …]` note of the declaration's JSDoc, e.g. "ExcelApi 1.12"; for a member without
 * one (`load`, `items`), the note of the class or interface declaring it.
 */
function apiSetNote(symbol: ts.Symbol): string | undefined {
  for (const declaration of symbol.declarations ?? []) {
    const text = declaration.getSourceFile().text;
    for (
      let node: ts.Node | undefined = declaration;
      node && !ts.isSourceFile(node) && !ts.isModuleBlock(node);
      node = node.parent
    ) {
      const jsDoc = ts
        .getJSDocCommentsAndTags(node)
        .map((d) => text.slice(d.pos, d.end))
        .join("\n");
      const match = /\[Api set: ([^\]]+)\]/.exec(jsDoc);
      if (match) return match[1];
    }
  }
  return undefined;
}

function accessOf(node: ts.Node): OfficeApiUse["access"] {
  const parent = node.parent;
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === node) return "call";
  if (ts.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
    return "write";
  return "read";
}

function recordGuard(node: ts.Node, file: string, guards: RequirementGuard[]): void {
  if (!ts.isCallExpression(node)) return;
  const callee = node.expression;
  const name = ts.isPropertyAccessExpression(callee)
    ? callee.name.text
    : ts.isIdentifier(callee)
      ? callee.text
      : undefined;
  const [set, version] = node.arguments;
  if (name !== "isSetSupported" || !set || !version || !ts.isStringLiteral(set) || !ts.isStringLiteral(version)) return;
  guards.push({ file, set: set.text, version: version.text });
}
