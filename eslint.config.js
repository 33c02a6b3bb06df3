// @ts-check
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");
const { builtinModules } = require("node:module");

/** Code that runs inside Excel (a browser) must not reach for Node. */
const nodeModules = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

module.exports = tseslint.config(
  { ignores: ["lib/", "dist/", "node_modules/", "coverage/", "test-results/", ".stryker-tmp/", "reports/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: [
      "src/client/**",
      "src/sheet/**",
      "src/contract/**",
      "src/model/**",
      "src/inputs/**",
      "src/screening/**",
      "functions/**",
      "taskpane/**",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: nodeModules.map((name) => ({ name, message: "This code runs in Excel's browser runtime." })) },
      ],
    },
  },
  {
    // Tests read JSON answers loosely; the code under test parses them with zod.
    files: ["test/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.js"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
    languageOptions: {
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        __dirname: "readonly",
        console: "readonly",
      },
    },
  },
);
