import { excelError, installCustomFunctionsRuntime } from "../support/custom-functions";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");

describe("before the add-in knows its relay", () => {
  test("a valid call answers #N/A saying to paste the token in the task pane", async () => {
    const e = await excelError(STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8));
    expect(e.code).toBe("#N/A");
    expect(e.message).toMatch(/STR_NOT_CONFIGURED/);
    expect(e.message).toMatch(/task pane/i);
  });

  test("an unreachable relay answers #N/A naming it", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { addinConnection } = require("../../src/client") as typeof import("../../src/client");
    await addinConnection().update({ relayUrl: "http://127.0.0.1:9", token: "a-token-0123456789abcdef" });
    const e = await excelError(STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8));
    expect(e.code).toBe("#N/A");
    expect(e.message).toMatch(/^\[STR_RELAY_UNREACHABLE\] .*Settings/);
  });
});
