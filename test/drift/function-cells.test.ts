import { excelError, installCustomFunctionsRuntime } from "../support/custom-functions";
import { STAND_IN_KEY, StandIn, startStandIn } from "../support/live-standin";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { FIELDS, PRICE, RIGHT, SHAPES } from "./shapes";

/**
 * The drift suite, in cells: the real relay, configured for the live service, calls a stand-in that
 * answers in the live shape and in each drifted shape; `=STR.BUY(…, fields)` spills the row a user
 * sees. Each cell holds the right figure, or is blank and the row's warnings say why — never a figure
 * 100× off, never a "success" without an analysis.
 */

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

const OMITTED = null as unknown as undefined;
const names = Object.keys(SHAPES);
const idOf = (name: string) => `live${String(names.indexOf(name)).padStart(4, "0")}`;

describe("every drifted answer, through STR.BUY's screening row", () => {
  let standIn: StandIn;
  let t: TestRelay;

  beforeAll(async () => {
    standIn = await startStandIn(({ body }) => {
      const name = String(body.fullAddress);
      const shape = SHAPES[name];
      return shape ? shape.answer(idOf(name)) : { status: 400, body: { success: false, error: "unknown shape" } };
    });
    t = await startRelay({ STR_API_KEY: STAND_IN_KEY, STR_API_BASE_URL: standIn.url });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(async () => {
    await t.close();
    await standIn.close();
  });

  test.each(names)("%s", async (name) => {
    const shape = SHAPES[name]!;
    const call = STR.buy([[name]], PRICE, 3, 2, 8, OMITTED, [[FIELDS.join(", ")]]);
    if (shape.expect.kind === "error") {
      const error = await excelError(call);
      expect(error.message).toContain(`[${shape.expect.code}]`);
      // The relay's error says what the service said; the cell's message is the advice for its code.
      const again = await t.post("/v1/external/analysis/create/buy", {
        fullAddress: name,
        purchasePriceUSD: PRICE,
        bedrooms: 3,
        bathrooms: 2,
        accomodates: 8,
      });
      expect(again.json.error.message).toMatch(shape.expect.message);
      return;
    }
    const rows = await call;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    const warnings = String(row[FIELDS.length]);
    const blank = new Set<string>(shape.expect.blank ?? []);
    FIELDS.forEach((field, i) => {
      const want =
        field === "_id"
          ? idOf(name)
          : blank.has(field)
            ? ""
            : (shape.expect.kind === "analysis" && shape.expect.cells?.[field]) || RIGHT[field];
      // toBeCloseTo for figures: a cell 100× off fails by far; 15-digit rounding does not.
      if (typeof want === "number") {
        expect({ field, value: typeof row[i] }).toEqual({ field, value: "number" });
        expect(row[i] as number).toBeCloseTo(want, 6);
      } else expect({ field, value: row[i] }).toEqual({ field, value: want });
    });
    for (const pattern of shape.expect.warnings) expect(warnings).toMatch(pattern);
    // A blank figure is never silent: the row warns.
    if (blank.size > 0) expect(warnings).toMatch(/left blank/);
  });
});
