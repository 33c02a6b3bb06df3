import { AnalysisEntity } from "../../src/sheet";
import { installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

// An Excel that shows data types (ExcelApi 1.19): STR.CARD answers an entity.
installCustomFunctionsRuntime();
(globalThis as Record<string, unknown>).Office = { context: { requirements: { isSetSupported: () => true } } };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

describe("STR.CARD in an Excel with data types", () => {
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

  test("one cell holding an entity in Excel's documented shape, readable as =A2.[Cash flow]", async () => {
    const result = await STR.card(
      "buy",
      [["12 Main St, Austin TX"]],
      [[[450000]], [[3]], [[2]], [[8]], [["interest=6.5"]]],
    );
    expect(result).toHaveLength(1);
    expect(result[0]).toHaveLength(1);
    const entity = AnalysisEntity.parse(result[0]?.[0]);
    expect(entity.properties["Cash flow"]).toMatchObject({ type: "Double", numberFormat: "$#,##0" });
    expect(entity.properties["Cap rate"]).toMatchObject({ type: "Double", numberFormat: "0.0%" });
    expect(entity.properties["Interest rate"]).toMatchObject({ basicValue: 0.065 });
    expect(entity.properties.DSCR).toMatchObject({ type: "Double" });
    expect(entity.properties.Photo).toMatchObject({ type: "WebImage" });
    expect(entity.properties.Comparables).toMatchObject({ type: "Double" });
    expect(entity.properties.Mode).toEqual({ type: "String", basicValue: "Sandbox (simulated data)" });
    expect(entity.layouts.card.sections.map((s) => s.title)).toEqual([
      "Revenue",
      "Financials",
      "Comparables",
      "Warnings",
      "Property",
      "Report",
    ]);
    expect(entity.provider.description).toMatch(/simulated/);
    // What the cell shows says it is simulated; the mode is beside the warnings, not folded away.
    expect(entity.text).toBe("SANDBOX: 12 Main St, Austin TX (buy)");
    expect(entity.layouts.card.sections.find((s) => s.title === "Warnings")?.properties).toEqual(["Mode", "Warnings"]);
    // The decision's price, loan and payment; the percentiles once, not again as "Quartiles: …".
    expect(entity.properties["Purchase price"]).toMatchObject({ basicValue: 450000 });
    expect(entity.properties["Loan amount"]).toMatchObject({ basicValue: 360000 });
    expect(entity.properties["Monthly payment"]).toMatchObject({ type: "Double", numberFormat: "$#,##0" });
    expect(Object.keys(entity.properties).filter((k) => k.startsWith("Quartiles"))).toEqual([]);
    expect(entity.properties["Annual revenue, median"]).toMatchObject({ type: "Double" });
    expect(JSON.stringify(entity)).not.toContain("referencedValues");
  });

  test("the service's warnings are in the entity", async () => {
    const result = await STR.card(
      "arb",
      [["1 Rue de Rivoli, Paris"]],
      [[[2500]], [[1]], [[1]], [[2]], [["addAIComps=TRUE"]]],
    );
    const entity = AnalysisEntity.parse(result[0]?.[0]);
    expect(entity.properties.Warnings).toMatchObject({
      type: "Array",
      elements: [
        [{ type: "String", basicValue: "SANDBOX: simulated data" }],
        [{ type: "String", basicValue: expect.stringMatching(/US properties only/) }],
      ],
    });
  });
});
