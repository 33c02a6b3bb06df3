/**
 * Mutation testing of the rules that decide money and read user values (`npm run mutate`, see
 * docs/mutation-testing.md). Not part of `npm test`: it runs the suite once per mutant.
 */
export default {
  mutate: [
    "src/relay/upstream/outcome.ts",
    "src/inputs/values.ts",
    "src/contract/billing.ts",
    "src/relay/upstream/retry-rule.ts",
  ],
  testRunner: "jest",
  jest: { projectType: "custom", configFile: "jest.mutate.config.js" },
  coverageAnalysis: "perTest",
  // The machine is shared: two test processes at most.
  concurrency: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 95, low: 90, break: 95 },
  ignorePatterns: ["lib", "dist", "coverage", "reports", ".relay-data", "test-results"],
};
