import { installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

const OMITTED = null as unknown as undefined;
const cell = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];

describe("STR.ENHANCE whose every AI step failed", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  test("shows its warnings at no cost, and a recalculation tries again instead of repeating the failure", async () => {
    const id = cell(await STR.buy([["40 Retry Rd, Austin TX"]], 450000, 3, 2, 8), "Analysis id");
    t.relay.sandbox?.setFaults({ aiFailureRate: 1 });
    const failed = await STR.enhance(id, OMITTED, true);
    expect(cell(failed, "Analysis")).toMatch(/^None in this answer/);
    expect(cell(failed, "Cached")).toBe("No: fetched now, cost $0.00");
    const arrivals = t.sandboxStats().arrivals;

    // The same formula recalculated, in the same session: it is asked again (still failing, still free)...
    expect(cell(await STR.enhance(id, OMITTED, true), "Analysis")).toMatch(/^None in this answer/);
    expect(t.sandboxStats().arrivals).toBe(arrivals + 1);

    // ...and once the AI step completes, the cell shows the enhanced analysis, at its price.
    t.relay.sandbox?.setFaults({ aiFailureRate: 0 });
    const enhanced = await STR.enhance(id, OMITTED, true);
    expect(cell(enhanced, "Analysis id")).toBe(id);
    expect(cell(enhanced, "Cached")).toBe("No: fetched now, cost $0.10");
    // Kept from now on: a recalculation sends nothing.
    expect(cell(await STR.enhance(id, OMITTED, true), "Cached")).toMatch(/^Yes/);
    expect(t.sandboxStats().arrivals).toBe(arrivals + 2);
  });
});
