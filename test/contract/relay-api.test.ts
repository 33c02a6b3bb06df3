import { BatchLine, RelayAnswer } from "../../src/contract";

/** How the client checks the relay's answers: the shape around the analysis, the analysis as an object. */
const relay = {
  cached: true,
  costUSD: 0,
  sandbox: true,
  fetchedAt: "2026-11-23T10:00:00.000Z",
  operation: "buy",
};

describe("RelayAnswer", () => {
  test("takes the analysis as the relay sent it: the same object, every field kept", () => {
    const data = { _id: "a1", revenue: { p50: 1 }, comparables: [], anythingNew: { x: 1 } };
    const parsed = RelayAnswer.safeParse({ success: true, data, relay, extraFromService: 7 });
    expect(parsed.success).toBe(true);
    // Checked, not copied: a batch answer's thousand analyses are not built twice.
    expect(parsed.data?.data).toBe(data);
    expect(parsed.data).toMatchObject({ extraFromService: 7, relay });
  });

  test.each([
    ["a list", [1, 2]],
    ["text", "analysis"],
    ["null", null],
    ["a number", 3],
  ])("refuses data that is %s, naming data", (_what, data) => {
    const parsed = RelayAnswer.safeParse({ success: true, data, relay });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["data"], message: "must be an object" });
  });

  test("an answer without data (every AI step failed) is an answer", () => {
    expect(RelayAnswer.safeParse({ success: false, warnings: ["AI comparables failed"], relay }).success).toBe(true);
  });
});

describe("BatchLine", () => {
  test("a line whose body is neither an answer nor an error is refused", () => {
    expect(BatchLine.safeParse({ index: 0, status: 200, body: { success: true, data: [], relay } }).success).toBe(
      false,
    );
    expect(BatchLine.safeParse({ index: 0, status: 200, body: { success: true, data: {}, relay } }).success).toBe(true);
    expect(
      BatchLine.safeParse({
        index: 0,
        status: 400,
        body: { success: false, error: { code: "STR_VALIDATION", message: "bad" } },
      }).success,
    ).toBe(true);
  });
});
