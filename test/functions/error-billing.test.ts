import { describeError } from "../../taskpane/pane-error";
import { excelError, installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { sheetError } = require("../../src/sheet") as typeof import("../../src/sheet");

/**
 * What a failed call says about its bill, through the real relay and sandbox: the cell (#N/A's
 * message), the task pane (describeError of a run, in the pane's words, its code last) and the CLI
 * (sheetError(…).detail, its report's error column) say the same bill, and never "not billed" when
 * nobody knows.
 */
describe("a failed call says whether it was billed, the same in the cell, the pane and the CLI", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay({}, { retryPolicy: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10 } });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterEach(() => t.relay.sandbox?.setFaults({ dropAfterProcessRate: 0, unavailableRate: 0 }));
  afterAll(() => t.close());

  /** The cell's error, and the same failure as the pane and the CLI show it. */
  async function failure(address: string) {
    let thrown: unknown;
    const { batcher } = await addinConnection().get();
    await batcher
      .request("buy", { fullAddress: address, purchasePriceUSD: 450000, bedrooms: 3, bathrooms: 2, accomodates: 8 })
      .catch((e: unknown) => (thrown = e));
    batcher.forget();
    const cell = await excelError(STR.buy([[address]], 450000, 3, 2, 8));
    return { cell, pane: describeError(thrown, "may-bill"), cli: sheetError(thrown).detail };
  }

  test("the service took the request and the connection broke: billing unknown, and the way to resend says it is billed again", async () => {
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 1 });
    const before = t.sandboxStats().billedCents;
    const { cell, pane, cli } = await failure("1 Unknown Way, Austin TX");
    expect(t.sandboxStats().billedCents).toBeGreaterThan(before); // the sandbox did bill it
    // The cell is the recalculation: the relay now refuses to resend on its own.
    expect(cell.message).toMatch(/^\[STR_OUTCOME_UNKNOWN\] Billing unknown: /);
    expect(pane).toMatch(/^Billing unknown: .* \(STR_UPSTREAM_FAILED\)$/);
    expect(cli).toMatch(/^\[STR_UPSTREAM_FAILED\] Billing unknown: /);
    for (const text of [cell.message, pane, cli]) {
      expect(text).not.toMatch(/not billed/i);
      expect(text).toMatch(/refresh explicitly.*billed again/i);
    }
  });

  test("the service could not take the request: not billed, and a new try is billed only if it succeeds", async () => {
    t.relay.sandbox?.setFaults({ unavailableRate: 1 });
    const before = t.sandboxStats().billedCents;
    const { cell, pane, cli } = await failure("2 Closed Rd, Austin TX");
    expect(t.sandboxStats().billedCents).toBe(before);
    expect(cell.message).toMatch(/^\[STR_UPSTREAM_FAILED\] Not billed: .*billed only if it succeeds/);
    expect(pane).toMatch(/^Not billed: .*billed only if it succeeds.* \(STR_UPSTREAM_FAILED\)$/);
    expect(cli).toMatch(/^\[STR_UPSTREAM_FAILED\] Not billed: /);
  });
});
