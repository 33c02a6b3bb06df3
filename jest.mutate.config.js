/**
 * The tests Stryker runs (`npm run mutate`): the direct tests of the files it mutates, so that a
 * run takes minutes. The same transform and settings as the parallel suite of jest.config.js.
 */
const { projects } = require("./jest.config");

const parallel = projects.find((p) => p.displayName === "parallel");

module.exports = {
  ...parallel,
  displayName: "mutate",
  testMatch: [
    "<rootDir>/test/relay/outcome.test.ts",
    "<rootDir>/test/relay/retry-rule.test.ts",
    "<rootDir>/test/inputs/values.test.ts",
    "<rootDir>/test/inputs/decimal-marks.test.ts",
    "<rootDir>/test/contract/billing.test.ts",
  ],
};
