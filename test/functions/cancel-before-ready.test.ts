import { excelError, installCustomFunctionsRuntime, invocation } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

/**
 * The first call of a session waits for the stored settings before it reaches the batcher. A cell
 * deleted meanwhile must not be sent (and billed) once they are loaded.
 */
describe("a call cancelled while the add-in loads its settings", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    installCustomFunctionsRuntime();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SETTINGS_KEYS, memoryStorage } = require("../../src/client") as typeof import("../../src/client");
    const relayUrl = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
    (globalThis as Record<string, unknown>).OfficeRuntime = {
      storage: memoryStorage({ [SETTINGS_KEYS.relayUrl]: relayUrl, [SETTINGS_KEYS.token]: TEST_TOKEN }),
    };
  });
  afterAll(() => t.close());

  test("settles #N/A and is never sent", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const STR = require("../../functions/functions") as typeof import("../../functions/functions");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { addinConnection } = require("../../src/client") as typeof import("../../src/client");
    expect(addinConnection().ready).toBeUndefined();
    const inv = invocation();
    const pending = STR.buy([["9 Deleted Ct, Austin TX"]], 450000, 3, 2, 8, null as never, null as never, inv as never);
    inv.cancel();
    expect((await excelError(pending)).message).toMatch(/^\[STR_CANCELLED\]/);
    // A call made after it is answered: the cancelled one, queued first, would have gone in the same
    // batch or an earlier one, so it would have reached the service by now.
    await STR.buy([["11 Kept Ct, Austin TX"]], 450000, 3, 2, 8);
    expect(t.sandboxStats().arrivals).toBe(1);
  });
});
