/** Unit and integration tests. ts-jest transpiles each file on its own (isolatedModules): fast start;
 * `npm run typecheck` does the type checking. */
const common = {
  testEnvironment: "node",
  testTimeout: 30000,
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
};

/**
 * Suites that assert rates and timings against real processes (the service seeing at most 100
 * requests a second, timeouts, crashes). `npm test` runs them after the rest, one at a time: on a
 * two-core machine the browser and build suites running beside them would stall the processes they
 * time, and bunch requests that were sent evenly.
 */
const PACED = [
  "/test/scale/.+\\.test\\.ts$",
  "/test/money/.+\\.test\\.ts$",
  "/test/reliability/.+\\.test\\.ts$",
  "/test/relay/pacer\\.test\\.ts$",
];

module.exports = {
  projects: [
    {
      ...common,
      displayName: "parallel",
      testMatch: ["**/*.test.ts"],
      testPathIgnorePatterns: ["/node_modules/", ...PACED],
    },
    { ...common, displayName: "paced", testRegex: PACED },
  ],
  maxWorkers: 2,
  testTimeout: 30000,
};
