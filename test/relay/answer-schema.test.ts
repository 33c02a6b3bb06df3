import { z } from "zod";
import { BatchLine, RelayMeta } from "../../src/contract";
import { BUY_PATH, ENHANCE_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * The contract's RelayMeta is what readers of `relay` rely on: every field the relay sends in it,
 * on every kind of answer, must be there with its type, so no reader has to cast.
 */
describe("RelayMeta describes every field of `relay` the relay sends", () => {
  let t: TestRelay;
  beforeAll(async () => {
    // Reports take a moment, so identical calls overlap and share one.
    t = await startRelay({}, { sandbox: { timeScale: 0.01 } });
  });
  afterAll(() => t.close());

  const described = z.strictObject(RelayMeta.shape);

  test("fresh, shared, cached, enhanced, stored and batched answers", async () => {
    const concurrent = await Promise.all(Array.from({ length: 3 }, () => t.post(BUY_PATH, buyBody(50))));
    const id = concurrent[0]?.json.data._id as string;
    const answers = [
      ...concurrent.map((a) => a.json),
      (await t.post(BUY_PATH, buyBody(50))).json,
      (await t.post(ENHANCE_PATH, { analysisId: id, addAIExpenseEstimates: true })).json,
      (await t.get(`/v1/analyses/${id}`)).json,
    ];
    const batch = await t.post("/v1/batch", {
      items: [
        { strategy: "buy", params: buyBody(50) },
        { strategy: "buy", params: buyBody(51) },
      ],
    });
    answers.push(
      ...batch.text
        .trim()
        .split("\n")
        .map((line) => BatchLine.parse(JSON.parse(line)).body),
    );
    // The kinds this test means to cover are all there.
    const relays = answers.map((a) => a.relay as Record<string, unknown>);
    expect(relays.some((r) => r.shared === true)).toBe(true);
    expect(relays.some((r) => r.cached === true)).toBe(true);
    expect(relays.some((r) => r.operation === "enhance")).toBe(true);
    for (const relay of relays) {
      const parsed = described.safeParse(relay);
      expect({ relay, issues: parsed.error?.issues ?? [] }).toEqual({ relay, issues: [] });
    }
  });
});
