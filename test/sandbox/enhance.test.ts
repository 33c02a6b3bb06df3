import { chargeFor, normalizeEnvelope } from "../../src/contract";
import { MIN_AI_PHOTOS, placeOf, usablePhotoCount } from "../../src/sandbox/model";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { KEY, OTHER_KEY, PARIS, billedCents, call, create, makeSandbox } from "./helpers";

/**
 * enhance (spec: "enhance: behaviour"): AI functions run against a stored analysis; partial success
 * bills only what completed; when every requested function fails the call is free, answers only
 * warnings, and leaves the stored analysis as it was.
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.app.close());

function usAddressWithPhotos(): string {
  for (let n = 1; n < 500; n++) {
    const fullAddress = `${n} Lamar Blvd, Austin, TX`;
    if (usablePhotoCount(placeOf({ fullAddress })) >= MIN_AI_PHOTOS) return fullAddress;
  }
  throw new Error("no address with enough photos");
}
const US_ADDRESS = usAddressWithPhotos();

async function reportPage(id: string): Promise<string> {
  return (await sandbox.app.inject({ method: "GET", url: `/reports/${id}` })).body;
}

describe("enhance that completes", () => {
  test("AI expense estimates: 200, the same analysis recalculated, 10 cents with no base fee", async () => {
    const created = await create(sandbox, "buy", { fullAddress: US_ADDRESS });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
    expect(r.json).not.toHaveProperty("warnings");
    expect(r.json.data._id).toBe(created._id);
    expect(r.json.data.url).toBe(created.url);
    expect(r.json.data.aiExpenseEstimatesApplied).toBe(true);
    expect(r.json.data.yearOneRevenueUSD).toBe(created.yearOneRevenueUSD);
    expect(r.json.data.operatingExpensesUSD).not.toEqual(created.operatingExpensesUSD);
    // Only the expenses changed, so the operating income moved by exactly the change in expenses.
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    const change = sum(created.operatingExpensesUSD) - sum(r.json.data.operatingExpensesUSD);
    expect(Math.abs(r.json.data.yearOneOperatingIncomeUSD - created.yearOneOperatingIncomeUSD - change)).toBeLessThan(
      0.05,
    );
    expect(sandbox.state.billing.map((e) => [e.op, e.reports, e.aiFunctions, e.cents])).toEqual([
      ["buy", 1, 0, 20],
      ["enhance", 0, 1, 10],
    ]);
  });

  test("AI comparables on a US address with photos: the comparables are re-selected", async () => {
    const created = await create(sandbox, "cohost", { fullAddress: US_ADDRESS });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIComps: true });
    expect(r.status).toBe(200);
    expect(r.json.data.aiComparablesApplied).toBe(true);
    expect(r.json.data.comparables.length).toBeLessThan(created.comparables.length);
    expect(billedCents(sandbox)).toBe(20 + 10);
  });

  test("both completing: 20 cents", async () => {
    const created = await create(sandbox, "arb", { fullAddress: US_ADDRESS });
    await call(sandbox, "enhance", { analysisId: created._id, addAIComps: true, addAIExpenseEstimates: true });
    expect(sandbox.state.billing[1]).toMatchObject({ op: "enhance", reports: 0, aiFunctions: 2, cents: 20 });
  });

  test("the stored analysis and its report page are updated", async () => {
    const created = await create(sandbox, "buy", { fullAddress: US_ADDRESS });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(sandbox.analysis(created._id)).toEqual(r.json.data);
    expect(sandbox.state.analyses.get(created._id)?.applied).toEqual({
      addAIComps: false,
      addAIExpenseEstimates: true,
    });
  });

  test("earlier AI results are kept: expenses after comparables keeps the comparables", async () => {
    const created = await create(sandbox, "buy", { fullAddress: US_ADDRESS, addAIComps: true });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(r.json.data).toMatchObject({ aiComparablesApplied: true, aiExpenseEstimatesApplied: true });
    expect(r.json.data.comparables).toEqual(created.comparables);
  });
});

describe("partial success", () => {
  test("comparables refused (non-US), expenses complete: 200 with warnings and data, only the completed function billed", async () => {
    const created = await create(sandbox, "buy", { fullAddress: PARIS });
    const params = { analysisId: created._id, addAIComps: true, addAIExpenseEstimates: true };
    const r = await call(sandbox, "enhance", params);
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
    expect(r.json.warnings).toEqual([expect.stringMatching(/^addAIComps .*US properties only/)]);
    expect(r.json.data).toMatchObject({
      _id: created._id,
      aiComparablesApplied: false,
      aiExpenseEstimatesApplied: true,
    });
    expect(sandbox.state.billing[1]).toMatchObject({ op: "enhance", reports: 0, aiFunctions: 1, cents: 10 });
    const n = normalizeEnvelope(r.json, 200);
    expect(
      chargeFor("enhance", params, { succeeded: n.success, hasData: n.data !== undefined, warnings: n.warnings }).cents,
    ).toBe(10);
  });

  test("the report page shows the warning of the call that last changed it", async () => {
    const created = await create(sandbox, "buy", { fullAddress: PARIS });
    await call(sandbox, "enhance", { analysisId: created._id, addAIComps: true, addAIExpenseEstimates: true });
    expect(await reportPage(created._id)).toMatch(/Warnings[\s\S]*US properties only/);
  });
});

describe("every requested function failing", () => {
  test("a non-US analysis asking only for comparables: 200 with only warnings, no data, free", async () => {
    const created = await create(sandbox, "cohost", { fullAddress: PARIS });
    const params = { analysisId: created._id, addAIComps: true };
    const r = await call(sandbox, "enhance", params);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(["warnings"]);
    expect(r.json.warnings).toEqual([expect.stringContaining("US properties only")]);
    expect(sandbox.state.billing).toHaveLength(1); // the create alone
    expect(billedCents(sandbox)).toBe(20);
    const n = normalizeEnvelope(r.json, 200);
    expect(n).toMatchObject({ success: true, warnings: r.json.warnings });
    expect(n.data).toBeUndefined();
    expect(chargeFor("enhance", params, { succeeded: n.success, hasData: false, warnings: n.warnings })).toEqual({
      reports: 0,
      aiFunctions: 0,
      cents: 0,
    });
  });

  test("aiFailureRate 1 with both requested: two warnings, no data, free", async () => {
    const created = await create(sandbox, "buy", { fullAddress: US_ADDRESS });
    sandbox.setFaults({ aiFailureRate: 1 });
    const r = await call(sandbox, "enhance", {
      analysisId: created._id,
      addAIComps: true,
      addAIExpenseEstimates: true,
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toBeUndefined();
    expect(r.json.warnings).toHaveLength(2);
    expect(r.json.warnings.join("\n")).toMatch(/addAIComps failed[\s\S]*addAIExpenseEstimates failed/);
    expect(billedCents(sandbox)).toBe(20);
  });

  test("timeouts too: free, warnings only", async () => {
    const created = await create(sandbox, "arb", { fullAddress: US_ADDRESS });
    sandbox.setFaults({ aiTimeoutRate: 1 });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(r.json).toEqual({ warnings: [expect.stringMatching(/timed out after 90 s/)] });
    expect(billedCents(sandbox)).toBe(20);
  });

  test("the stored analysis and its report page are unchanged", async () => {
    const created = await create(sandbox, "buy", { fullAddress: US_ADDRESS });
    const before = structuredClone(sandbox.state.analyses.get(created._id));
    const dataBefore = sandbox.analysis(created._id);
    const pageBefore = await reportPage(created._id);
    sandbox.setFaults({ aiFailureRate: 1 });
    await call(sandbox, "enhance", { analysisId: created._id, addAIComps: true, addAIExpenseEstimates: true });
    expect(sandbox.state.analyses.get(created._id)).toEqual(before);
    expect(sandbox.analysis(created._id)).toEqual(dataBefore);
    expect(await reportPage(created._id)).toBe(pageBefore);
  });

  test("object-style warnings-only answers carry each function's code", async () => {
    sandbox.setFaults({ warningStyle: "object" });
    const created = await create(sandbox, "cohost", { fullAddress: PARIS });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIComps: true });
    expect(r.json).toEqual({
      warnings: [{ function: "addAIComps", code: "AI_COMPS_US_ONLY", message: expect.any(String) }],
    });
  });
});

describe("which analyses can be enhanced", () => {
  test("an unknown id is 404, not billed", async () => {
    const r = await call(sandbox, "enhance", { analysisId: "000000000000000000000000", addAIExpenseEstimates: true });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ success: false, error: expect.stringContaining("not found") });
    expect(billedCents(sandbox)).toBe(0);
  });

  test("another key's analysis is 404 for this key, as if it did not exist, and not billed", async () => {
    const created = await create(sandbox, "buy", {}, OTHER_KEY);
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true }, KEY);
    expect(r.status).toBe(404);
    expect(sandbox.state.totals(KEY).cents).toBe(0);
    // The owner still can.
    expect(
      (await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true }, OTHER_KEY)).status,
    ).toBe(200);
  });

  test("an unsafe id is refused as invalid (400) before it is looked up", async () => {
    const r = await call(sandbox, "enhance", { analysisId: "../reports/x", addAIComps: true });
    expect(r.status).toBe(400);
    expect(r.json.fields).toEqual([
      { path: "analysisId", message: expect.stringContaining("letters, digits, - or _") },
    ]);
  });

  test("ids are case-sensitive", async () => {
    const created = await create(sandbox, "buy");
    const r = await call(sandbox, "enhance", {
      analysisId: String(created._id).toUpperCase(),
      addAIExpenseEstimates: true,
    });
    expect(r.status).toBe(404);
  });
});
