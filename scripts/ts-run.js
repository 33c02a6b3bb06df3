#!/usr/bin/env node
// Runs a TypeScript file (a benchmark or script) without a build step: each .ts file is
// transpiled to CommonJS on require, types unchecked (`npm run typecheck` checks them).
// Usage: node scripts/ts-run.js bench/relay.ts [args…]
const fs = require("node:fs");
const path = require("node:path");
const ts = require("typescript");

require.extensions[".ts"] = function compile(module, filename) {
  const source = fs.readFileSync(filename, "utf8");
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      sourceMap: false,
      inlineSourceMap: true,
    },
  });
  module._compile(outputText, filename);
};

const [, , file, ...rest] = process.argv;
if (!file) {
  process.stderr.write("usage: node scripts/ts-run.js FILE.ts [args…]\n");
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(file), ...rest];
require(path.resolve(file));
