import { AiFunction, chargeFor, normalizeEnvelope, warningText } from "../../src/contract";
import { MIN_AI_PHOTOS, placeOf, usablePhotoCount } from "../../src/sandbox/model";
import { sandboxOptionsFromEnv } from "../../src/sandbox/sandbox-options";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { BODIES, KEY, OTHER_KEY, PARIS, billedCents, call, create, makeSandbox } from "./helpers";

/**
 * AI functions on create (spec: "AI parameters", "Create endpoints: behaviour"): comparables only
 * for US addresses with at least 8 usable photos; a step that fails or times out leaves a warning,
 * a valid analysis, and no charge for that step.
 */

/** The first of `Main St` addresses in `city` whose photo count passes `wanted`. */
function addressWith(
  wanted: (photos: number) => boolean,
  city = "Austin, TX",
  country?: string,
): { fullAddress: string; photos: number } {
  for (let n = 1; n < 500; n++) {
    const fullAddress = `${n} Main St, ${city}`;
    const photos = usablePhotoCount(placeOf({ fullAddress, ...(country ? { country } : {}) }));
    if (wanted(photos)) return { fullAddress, photos };
  }
  throw new Error("no such address");
}

const PLENTY = addressWith((p) => p >= MIN_AI_PHOTOS);
const FEW = addressWith((p) => p < MIN_AI_PHOTOS);

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.app.close());

/** What the contract's billing rules say an answer cost; must match the sandbox's own bill. */
function contractCharge(
  op: "buy" | "arb" | "owned" | "cohost" | "enhance",
  params: Record<string, unknown>,
  r: { status: number; json: any },
): number {
  const n = normalizeEnvelope(r.json, r.status);
  return chargeFor(op, params, {
    succeeded: r.status === 200 && n.success,
    hasData: n.data !== undefined,
    warnings: n.warnings,
  }).cents;
}

describe("AI comparables need a US address", () => {
  test("a Paris address: 200 with a warning, standard comparables, the report billed alone", async () => {
    const params = { ...BODIES.buy, fullAddress: PARIS, addAIComps: true };
    const r = await call(sandbox, "buy", params);
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
    expect(r.json.warnings).toHaveLength(1);
    expect(r.json.warnings[0]).toMatch(/^addAIComps .*US properties only.*Not billed\.$/);
    expect(r.json.data.aiComparablesApplied).toBe(false);
    const plain = await create(sandbox, "buy", { fullAddress: PARIS });
    expect(r.json.data.comparables).toEqual(plain.comparables);
    expect(billedCents(sandbox)).toBe(20 + 20);
    expect(contractCharge("buy", params, r)).toBe(20);
  });

  test("Paris by coordinates is refused the same way", async () => {
    const r = await call(sandbox, "cohost", {
      ...BODIES.cohost,
      fullAddress: undefined,
      lat: 48.8566,
      lng: 2.3522,
      addAIComps: true,
    });
    expect(r.status).toBe(200);
    expect(r.json.warnings[0]).toMatch(/US properties only/);
    expect(billedCents(sandbox)).toBe(20);
  });

  test("a country given as U.S.A. counts as the US", async () => {
    const place = addressWith((p) => p >= MIN_AI_PHOTOS, "Springfield", "U.S.A.");
    for (const country of ["U.S.A.", "U.S.", "USA", "United States"]) {
      const r = await call(sandbox, "cohost", {
        ...BODIES.cohost,
        fullAddress: place.fullAddress,
        country,
        addAIComps: true,
      });
      expect(`${country}: ${JSON.stringify(r.json.warnings ?? [])}`).toBe(`${country}: []`);
      expect(r.json.data.aiComparablesApplied).toBe(true);
    }
  });

  test("a country that is not the US overrides a US-looking address", async () => {
    const r = await call(sandbox, "cohost", {
      ...BODIES.cohost,
      fullAddress: PLENTY.fullAddress,
      country: "Mexico",
      addAIComps: true,
    });
    expect(r.json.warnings[0]).toMatch(/US properties only/);
  });
});

describe("AI comparables need at least 8 usable photos", () => {
  test(`an address with fewer photos: 200, a warning giving the count and the minimum, not billed`, async () => {
    expect(FEW.photos).toBeLessThan(8);
    const params = { ...BODIES.buy, fullAddress: FEW.fullAddress, addAIComps: true };
    const r = await call(sandbox, "buy", params);
    expect(r.status).toBe(200);
    expect(r.json.warnings).toEqual([expect.stringContaining(`only ${FEW.photos} usable listing photos`)]);
    expect(r.json.warnings[0]).toContain("at least 8");
    expect(r.json.data.aiComparablesApplied).toBe(false);
    expect(billedCents(sandbox)).toBe(20);
    expect(contractCharge("buy", params, r)).toBe(20);
  });

  test("an address with enough photos gets AI comparables: 200, no warning, 30 cents", async () => {
    expect(PLENTY.photos).toBeGreaterThanOrEqual(8);
    const params = { ...BODIES.buy, fullAddress: PLENTY.fullAddress, addAIComps: true };
    const r = await call(sandbox, "buy", params);
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty("warnings");
    expect(r.json.data.aiComparablesApplied).toBe(true);
    expect(billedCents(sandbox)).toBe(30);
    expect(contractCharge("buy", params, r)).toBe(30);
  });

  test("AI expense estimates need no photos", async () => {
    const r = await call(sandbox, "arb", { ...BODIES.arb, fullAddress: FEW.fullAddress, addAIExpenseEstimates: true });
    expect(r.json).not.toHaveProperty("warnings");
    expect(r.json.data.aiExpenseEstimatesApplied).toBe(true);
    expect(billedCents(sandbox)).toBe(30);
  });

  test("both AI functions completing cost 40 cents", async () => {
    const data = await create(sandbox, "owned", {
      fullAddress: PLENTY.fullAddress,
      addAIComps: true,
      addAIExpenseEstimates: true,
    });
    expect(sandbox.state.totals(KEY)).toEqual({ calls: 1, reports: 1, aiFunctions: 2, cents: 40 });
    // Built again by its id with both AI results applied, as answered.
    expect(sandbox.analysis(data._id)).toEqual(data);
  });
});

describe("AI steps that fail or time out", () => {
  const both = { addAIComps: true, addAIExpenseEstimates: true };

  test("aiFailureRate 1: both steps fail, each with its warning; the analysis is still there; the report alone is billed", async () => {
    sandbox.setFaults({ aiFailureRate: 1 });
    const params = { ...BODIES.buy, fullAddress: PLENTY.fullAddress, ...both };
    const r = await call(sandbox, "buy", params);
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
    expect(r.json.warnings).toEqual([
      "addAIComps failed: the AI step could not complete; standard comparables were used. Not billed.",
      "addAIExpenseEstimates failed: the AI step could not complete; category default expenses were used. Not billed.",
    ]);
    expect(r.json.data).toMatchObject({ aiComparablesApplied: false, aiExpenseEstimatesApplied: false });
    expect(typeof r.json.data.yearOneCashFlowUSD).toBe("number");
    expect(sandbox.state.totals()).toEqual({ calls: 1, reports: 1, aiFunctions: 0, cents: 20 });
    expect(contractCharge("buy", params, r)).toBe(20);
  });

  test("aiTimeoutRate 1: both steps time out after 90 s, with warnings, not billed", async () => {
    sandbox.setFaults({ aiTimeoutRate: 1 });
    const params = { ...BODIES.cohost, fullAddress: PLENTY.fullAddress, ...both };
    const r = await call(sandbox, "cohost", params);
    expect(r.status).toBe(200);
    expect(r.json.warnings).toHaveLength(2);
    for (const w of r.json.warnings) expect(w).toMatch(/timed out after 90 s/);
    expect(billedCents(sandbox)).toBe(20);
    expect(contractCharge("cohost", params, r)).toBe(20);
  });

  test("a timed-out step is bounded by the 90-second limit (scaled), not left hanging", async () => {
    const slow = makeSandbox({ timeScale: 0.002, faults: { aiTimeoutRate: 1 } });
    try {
      const started = performance.now();
      const r = await call(slow, "cohost", {
        ...BODIES.cohost,
        fullAddress: PLENTY.fullAddress,
        addAIExpenseEstimates: true,
      });
      const elapsed = performance.now() - started;
      expect(r.status).toBe(200);
      // The report's 10–30 s plus the 90-second limit, at 2 ms a second: 200 to 240 ms.
      expect(elapsed).toBeGreaterThanOrEqual(195);
      expect(elapsed).toBeLessThan(2_000);
    } finally {
      await slow.app.close();
    }
  });

  test("the same request meets the same fate every time", async () => {
    sandbox.setFaults({ aiFailureRate: 0.5 });
    const fates = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await call(sandbox, "arb", { ...BODIES.arb, fullAddress: PLENTY.fullAddress, ...both });
      fates.add(JSON.stringify(r.json.warnings ?? []));
    }
    expect(fates.size).toBe(1);
  });

  /** With half the steps failing, the first address where exactly `fails` failed. */
  async function partial(
    fails: AiFunction,
  ): Promise<{ params: Record<string, unknown>; r: Awaited<ReturnType<typeof call>> }> {
    sandbox.setFaults({ aiFailureRate: 0.5 });
    for (let n = 1; n < 300; n++) {
      const fullAddress = `${n} Congress Ave, Austin, TX`;
      if (usablePhotoCount(placeOf({ fullAddress })) < MIN_AI_PHOTOS) continue;
      const params = { ...BODIES.buy, fullAddress, ...both };
      const r = await call(sandbox, "buy", params);
      const warnings: unknown[] = r.json.warnings ?? [];
      if (warnings.length === 1 && warningText(warnings[0] as string).startsWith(fails)) return { params, r };
    }
    throw new Error(`no address where only ${fails} failed`);
  }

  test("only expense estimates failing: comparables applied, 30 cents, and the warning read the same way by the contract", async () => {
    const { params, r } = await partial("addAIExpenseEstimates");
    expect(r.json.data).toMatchObject({ aiComparablesApplied: true, aiExpenseEstimatesApplied: false });
    const last = sandbox.state.billing[sandbox.state.billing.length - 1];
    expect(last).toMatchObject({ reports: 1, aiFunctions: 1, cents: 30 });
    expect(contractCharge("buy", params, r)).toBe(30);
  });

  test("only comparables failing: expenses applied, 30 cents, and the contract agrees", async () => {
    const { params, r } = await partial("addAIComps");
    expect(r.json.data).toMatchObject({ aiComparablesApplied: false, aiExpenseEstimatesApplied: true });
    expect(sandbox.state.billing[sandbox.state.billing.length - 1]).toMatchObject({ cents: 30 });
    expect(contractCharge("buy", params, r)).toBe(30);
  });
});

describe("warnings as objects", () => {
  test("warningStyle object: each warning names its function and code, with a message", async () => {
    sandbox.setFaults({ warningStyle: "object", aiFailureRate: 1 });
    const params = { ...BODIES.buy, fullAddress: PARIS, addAIComps: true, addAIExpenseEstimates: true };
    const r = await call(sandbox, "buy", params);
    expect(r.status).toBe(200);
    expect(r.json.warnings).toEqual([
      { function: "addAIComps", code: "AI_COMPS_US_ONLY", message: expect.stringContaining("US properties only") },
      {
        function: "addAIExpenseEstimates",
        code: "AI_STEP_FAILED",
        message: expect.stringContaining("could not complete"),
      },
    ]);
    expect(billedCents(sandbox)).toBe(20);
    expect(contractCharge("buy", params, r)).toBe(20);
  });

  test("object warnings for a photo-short address carry their own code", async () => {
    sandbox.setFaults({ warningStyle: "object" });
    const r = await call(sandbox, "cohost", { ...BODIES.cohost, fullAddress: FEW.fullAddress, addAIComps: true });
    expect(r.json.warnings).toEqual([
      { function: "addAIComps", code: "AI_COMPS_TOO_FEW_PHOTOS", message: expect.stringContaining("at least 8") },
    ]);
  });
});

describe("the bill per key", () => {
  test("ledger totals per key follow the rules, and match the contract's reading of each answer", async () => {
    const calls: {
      key: string;
      op: "buy" | "arb" | "owned" | "cohost" | "enhance";
      params: Record<string, unknown>;
    }[] = [
      { key: KEY, op: "buy", params: { ...BODIES.buy } }, // 20
      {
        key: KEY,
        op: "buy",
        params: { ...BODIES.buy, fullAddress: PLENTY.fullAddress, addAIComps: true, addAIExpenseEstimates: true },
      }, // 40
      { key: KEY, op: "owned", params: { ...BODIES.owned, fullAddress: PARIS, addAIComps: true } }, // 20: comps refused
      { key: KEY, op: "cohost", params: { ...BODIES.cohost, bedrooms: 2.5 } }, // 400: 0
      { key: OTHER_KEY, op: "cohost", params: { ...BODIES.cohost } }, // 20
      { key: OTHER_KEY, op: "arb", params: { ...BODIES.arb, addAIExpenseEstimates: true } }, // 30
    ];
    let contractCents = 0;
    const ids: Record<string, string> = {};
    for (const c of calls) {
      const r = await call(sandbox, c.op, c.params, c.key);
      contractCents += contractCharge(c.op, c.params, r);
      if (r.status === 200) ids[c.key] = r.json.data._id;
    }
    // One enhance of KEY's last analysis (Paris): comps refused again, expenses complete: 10.
    const enhanceParams = { analysisId: ids[KEY], addAIComps: true, addAIExpenseEstimates: true };
    const e = await call(sandbox, "enhance", enhanceParams, KEY);
    contractCents += contractCharge("enhance", enhanceParams, e);

    expect(sandbox.state.totals(KEY)).toEqual({ calls: 4, reports: 3, aiFunctions: 3, cents: 20 + 40 + 20 + 10 });
    expect(sandbox.state.totals(OTHER_KEY)).toEqual({ calls: 2, reports: 2, aiFunctions: 1, cents: 20 + 30 });
    expect(sandbox.state.totals()).toMatchObject({ calls: 6, cents: 140 });
    expect(contractCents).toBe(140);
  });

  test("/__sandbox/billing shows totals by key fingerprint, never the key", async () => {
    await create(sandbox, "cohost");
    await create(sandbox, "cohost", { addAIExpenseEstimates: true }, OTHER_KEY);
    const r = await sandbox.app.inject({ method: "GET", url: "/__sandbox/billing" });
    const body = r.json();
    expect(body.total).toEqual({ calls: 2, reports: 2, aiFunctions: 1, cents: 50 });
    expect(Object.values(body.byKey)).toEqual(
      expect.arrayContaining([expect.objectContaining({ cents: 20 }), expect.objectContaining({ cents: 30 })]),
    );
    expect(r.body).not.toContain(KEY);
    expect(r.body).not.toContain(OTHER_KEY);
    expect(Object.keys(body.byKey)).toContain(`${KEY.slice(0, 3)}…${KEY.slice(-4)}`);
  });
});

describe("slow AI (aiExtraLatencyMs, SANDBOX_AI_EXTRA_LATENCY_MS)", () => {
  const timed = async (op: "buy" | "enhance", params: Record<string, unknown>) => {
    const started = Date.now();
    const r = await call(sandbox, op, params);
    return { ms: Date.now() - started, r };
  };

  test("a call that asks for an AI step waits the extra time; one without AI does not", async () => {
    await sandbox.app.close();
    // Long enough that a plain call held for it could not pass for one a busy machine was slow to answer.
    sandbox = makeSandbox({ faults: { aiExtraLatencyMs: 2000 } });
    const plain = await timed("buy", { ...BODIES.buy });
    expect(plain.r.status).toBe(200);
    expect(plain.ms).toBeLessThan(1000);
    const [withAi, enhanced] = await Promise.all([
      timed("buy", { ...BODIES.buy, fullAddress: PLENTY.fullAddress, addAIExpenseEstimates: true }),
      timed("enhance", { analysisId: plain.r.json.data._id, addAIComps: true }),
    ]);
    expect(withAi.r.status).toBe(200);
    expect(withAi.ms).toBeGreaterThanOrEqual(2000);
    expect(enhanced.r.status).toBe(200);
    expect(enhanced.ms).toBeGreaterThanOrEqual(2000);
  });

  test("SANDBOX_AI_EXTRA_LATENCY_MS sets it; a bad value names the variable", () => {
    expect(sandboxOptionsFromEnv({ SANDBOX_AI_EXTRA_LATENCY_MS: "5000" }).faults.aiExtraLatencyMs).toBe(5000);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_AI_EXTRA_LATENCY_MS: "-1" })).toThrow(
      /SANDBOX_AI_EXTRA_LATENCY_MS .*; got "-1"/,
    );
  });
});
