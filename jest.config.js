/** Unit and integration tests. ts-jest transpiles each file on its own (isolatedModules): fast start;
 * `npm run typecheck` does the type checking. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  moduleNameMapper: {
    // office-addin-mock pulls office-addin-manifest, whose dependencies are ESM-only.
    "^office-addin-manifest$": "<rootDir>/test/support/office-addin-manifest-stub.js",
  },
  maxWorkers: 2,
  testTimeout: 30000,
};
