import { TestInvocation, excelError, installCustomFunctionsRuntime, invocation } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

/**
 * Excel evaluates a formula while it is typed to preview its value (Microsoft's "Work with formula
 * value preview mode in your custom functions", learn.microsoft.com/office/dev/add-ins/excel/
 * custom-functions-formula-value-preview): a function that can bill must not ask for anything then.
 * Every function is listed here as billable or free, so a new one cannot be left out.
 */
const OMITTED = null as unknown as undefined;
const cell = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];
type Call = (inv: TestInvocation) => Promise<unknown[][]>;

let t: TestRelay;
let serial = 0;
/** An address no other call of this file used: neither the session nor the relay's cache has it. */
const fresh = () => [[`${100 + serial++} Preview Ln, Austin TX`]];
const relayRequests = async () =>
  [...(await t.relay.metrics.render()).matchAll(/^str_relay_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
    (s, m) => s + Number(m[1]),
    0,
  );

/** Each function that can bill, as a call with arguments nothing has asked for yet (built before counting). */
const BILLABLE: Record<string, () => Promise<Call>> = {
  buy: async () => {
    const at = fresh();
    return (inv) => STR.buy(at, 450000, 3, 2, 8, OMITTED, OMITTED, inv as never);
  },
  arb: async () => {
    const at = fresh();
    return (inv) => STR.arb(at, 2100, 2, 1, 4, OMITTED, OMITTED, inv as never);
  },
  owned: async () => {
    const at = fresh();
    return (inv) => STR.owned(at, 300000, 20, 6.5, 30, 22, 3, 2, 6, OMITTED, OMITTED, inv as never);
  },
  cohost: async () => {
    const at = fresh();
    return (inv) => STR.cohost(at, 2, 1, 4, 25, OMITTED, OMITTED, inv as never);
  },
  enhance: async () => {
    const id = cell(await STR.buy(fresh(), 450000, 3, 2, 8), "Analysis id");
    return (inv) => STR.enhance(id, OMITTED, true, OMITTED, inv as never);
  },
  card: async () => {
    const at = fresh();
    return (inv) => STR.card("buy", at, [[[450000]], [[3]], [[2]], [[8]]], inv as never);
  },
};
/** Functions that only read a stored analysis or compute locally: never billed, so they may preview. */
const FREE = ["comps", "monthly", "whatif", "sensitivity", "maxbid", "projection"];

beforeAll(async () => {
  t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "100" });
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  await addinConnection().update({
    relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
    token: TEST_TOKEN,
  });
});
afterAll(() => t.close());

test("every STR.* function is listed as billable or free", () => {
  expect(Object.keys(STR).sort()).toEqual([...Object.keys(BILLABLE), ...FREE].sort());
});

describe.each(Object.keys(BILLABLE))("STR.%s", (name) => {
  test("in value preview: nothing reaches the relay; pressing Enter sends and bills", async () => {
    const call = await (BILLABLE[name] as () => Promise<Call>)();
    const requests = await relayRequests();
    const arrivals = t.sandboxStats().arrivals;
    const preview = await call(invocation({ isInValuePreview: "true" }));
    expect(String(preview[0]?.[0])).toMatch(/press Enter/);
    expect((await relayRequests()) - requests).toBe(0);
    expect(t.sandboxStats().arrivals - arrivals).toBe(0);

    // The same call for real: it does reach the service, so the zero above is not vacuous.
    const billed = t.sandboxStats().billedCents;
    await call(invocation());
    expect((await relayRequests()) - requests).toBeGreaterThan(0);
    expect(t.sandboxStats().arrivals - arrivals).toBeGreaterThan(0);
    expect(t.sandboxStats().billedCents).toBeGreaterThan(billed);
  });

  test("in value preview, bad arguments still show #VALUE! naming them", async () => {
    const bad: Record<string, Call> = {
      buy: (inv) => STR.buy(fresh(), -1, 3, 2, 8, OMITTED, OMITTED, inv as never),
      arb: (inv) => STR.arb(fresh(), -1, 2, 1, 4, OMITTED, OMITTED, inv as never),
      owned: (inv) => STR.owned(fresh(), 300000, 20, 6.5, 30, 22, 3, 2, -6, OMITTED, OMITTED, inv as never),
      cohost: (inv) => STR.cohost(fresh(), 2, 1, -4, 25, OMITTED, OMITTED, inv as never),
      enhance: (inv) => STR.enhance("not an id!", OMITTED, OMITTED, OMITTED, inv as never),
      card: (inv) => STR.card("flip", fresh(), [[[1]]], inv as never),
    };
    const e = await excelError((bad[name] as Call)(invocation({ isInValuePreview: "true" })));
    expect(e.code).toBe("#VALUE!");
    expect(e.message).toMatch(/purchasePrice|monthlyRent|guests|analysisId|strategy/);
  });
});

describe("a call Excel cancels (its cell deleted or recalculated) settles with #N/A, whatever the function", () => {
  let id: unknown;
  beforeAll(async () => {
    id = cell(await STR.buy(fresh(), 450000, 3, 2, 8), "Analysis id");
  });
  const calls: Record<string, () => Call> = {
    buy: () => (inv) => STR.buy(fresh(), 450000, 3, 2, 8, OMITTED, OMITTED, inv as never),
    enhance: () => (inv) => STR.enhance(id, OMITTED, true, OMITTED, inv as never),
    comps: () => (inv) => STR.comps(id, 5, inv as never),
    whatif: () => (inv) => STR.whatif(id, 500000, OMITTED, OMITTED, OMITTED, OMITTED, OMITTED, inv as never),
    sensitivity: () => (inv) =>
      STR.sensitivity(id, "purchasePrice", [[400000], [500000]], "interestRatePct", [[5, 6]], "DSCR", inv as never),
    maxbid: () => (inv) => STR.maxbid(id, "cash-on-cash", "8%", OMITTED, OMITTED, OMITTED, OMITTED, inv as never),
    projection: () => (inv) =>
      STR.projection(id, 10, OMITTED, OMITTED, OMITTED, OMITTED, OMITTED, OMITTED, OMITTED, OMITTED, inv as never),
    card: () => (inv) => STR.card("buy", fresh(), [[[450000]], [[3]], [[2]], [[8]]], inv as never),
  };
  test.each(Object.keys(calls))("STR.%s", async (name) => {
    const inv = invocation();
    const pending = (calls[name] as () => Call)()(inv);
    inv.cancel();
    const e = await excelError(pending);
    expect(e).toEqual({ code: "#N/A", message: expect.stringMatching(/^\[STR_CANCELLED\]/) });
  });
});
