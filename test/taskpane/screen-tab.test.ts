import { RelayCallError, RelayClient } from "../../src/client";
import { UndoGroup } from "../../taskpane/excel/host";
import { ScreenTab, ScreenTabDeps } from "../../taskpane/screen-tab";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { FakeExcel, installFakeExcel, writtenRows } from "../support/fake-excel";

/**
 * The Screen tab without a browser: the table read from the fake Excel's workbook, the
 * settings made on it, Estimate (a dry run on the real relay's sandbox) and Screen, as the view
 * forwards the user's clicks. Cells typed where the results go after the estimate are asked about
 * again (overwrite.ts), and nothing is sent meanwhile.
 */
const HEADER = ["Property Address", "List Price ($)", "Beds", "Baths", "Sleeps"];

function table(rows: number, street: string): unknown[][] {
  const grid: unknown[][] = [HEADER];
  for (let i = 1; i <= rows; i++) grid.push([`${i} ${street} St, Austin TX`, 400000 + i * 1000, 3, 2, 6]);
  return grid;
}

function workbook(rows: number, street: string) {
  const grid = table(rows, street);
  const wb = installFakeExcel({
    sheets: [{ name: "Deals", rows: grid }],
    selection: { row: 0, column: 0, rows: rows + 1, columns: HEADER.length },
  });
  return { wb };
}

/** The pane around the tab: what it was told, and the undo steps it opened. */
function pane(wb: FakeExcel, client: () => Promise<RelayClient>, close?: () => Promise<void>) {
  const told = { modes: [] as string[], spendChanged: 0, groups: 0, closed: 0 };
  const deps: ScreenTabDeps = {
    run: wb.run,
    undoGroup: (): UndoGroup => {
      told.groups++;
      return {
        run: wb.run,
        close: async () => {
          told.closed++;
          await close?.();
        },
      };
    },
    client,
    setMode: (mode) => told.modes.push(mode),
    spendChanged: () => told.spendChanged++,
  };
  return { tab: new ScreenTab(deps, "buy"), told };
}

const noRelay = async (): Promise<RelayClient> => {
  throw new Error("nothing may be sent");
};

describe("the table and its settings, before anything is priced", () => {
  test("read: its columns recognised; a field is held by one column only; no location column, nothing to estimate", async () => {
    const { wb } = workbook(3, "Read");
    const { tab } = pane(wb, noRelay);
    expect(tab.check()).toEqual({ kind: "no-table" });
    const read = await tab.readTable();
    expect(read.address).toBe("Deals!A1:E4");
    expect(tab.state.mapping).toEqual(["fullAddress", "purchasePriceUSD", "bedrooms", "bathrooms", "accomodates"]);
    expect(tab.missingLocation()).toBeUndefined();
    tab.setColumn(2, "fullAddress");
    expect(tab.state.mapping).toEqual([null, "purchasePriceUSD", "fullAddress", "bathrooms", "accomodates"]);
    tab.setColumn(2, null);
    expect(tab.missingLocation()).toMatch(/address/i);
    tab.setColumn(0, "fullAddress");
    expect(tab.check().kind).toBe("ready");
  });

  test("Estimate's reasons to price nothing, each said where it is fixed, with nothing sent", async () => {
    const { wb } = workbook(3, "Refuse");
    const { tab } = pane(wb, noRelay);
    await tab.readTable();
    const defaults = tab.fieldChoices()?.chosen ?? new Set<string>();
    expect(defaults.size).toBeGreaterThan(3);
    let left = defaults.size;
    for (const path of defaults) expect(tab.chooseField(path, false)).toBe(--left);
    expect(await tab.dryRun()).toEqual({ kind: "no-fields" });
    // Another strategy: its own default columns.
    tab.setStrategy("arb");
    expect(tab.state.chosen).toBeUndefined();
    tab.setStrategy("buy");

    expect(tab.setMaxBid("cash-on-cash>8%")).toMatchObject({ ok: false });
    expect(await tab.dryRun()).toEqual({ kind: "bad-max-bid", message: expect.stringMatching(/">" is not supported/) });
    tab.setMaxBid(" ");
    expect(tab.state.maxBid).toBeUndefined();

    expect(tab.setLoanTerm("interestRatePercentage", "lots")).toEqual([expect.stringMatching(/^Interest .*"lots"$/)]);
    expect(await tab.dryRun()).toMatchObject({ kind: "bad-loan-terms", issues: [expect.any(String)] });
    expect(tab.setLoanTerm("interestRatePercentage", "6.5%")).toEqual([]);
    const ready = tab.check();
    expect(ready.kind === "ready" && ready.job.items[0]?.params).toMatchObject({ interestRatePercentage: 6.5 });
  });
});

describe("Estimate, then Screen, on the relay's sandbox", () => {
  let t: TestRelay;
  let client: RelayClient;
  beforeAll(async () => {
    t = await startRelay();
    client = new RelayClient({ baseUrl: await t.listen(), token: TEST_TOKEN });
  });
  afterAll(() => t.close());

  test("priced with nothing sent; the run writes beside the table in one undo step, with progress and the deals' summary; the estimate is used up", async () => {
    const { wb } = workbook(5, "Run");
    const { tab, told } = pane(wb, async () => client);
    await tab.readTable();
    const arrivals = t.sandboxStats().arrivals;
    const dry = await tab.dryRun();
    expect(dry.kind === "estimated" && dry.estimated).toMatchObject({
      estimate: { items: 5, toCreate: 5, estimatedCostUSD: 1, sandbox: true },
      destination: { occupied: 0 },
      offer: { offered: true },
      unusualRows: false,
    });
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(told.modes).toEqual(["sandbox"]);
    expect(tab.runnable()).toBe(5);

    const done: number[] = [];
    const run = await tab.screen("right", (p) => done.push(p.done));
    expect(run).toMatchObject({
      kind: "ran",
      job: { blockColumn: 5 },
      summary: { analysed: 5 },
      closeError: undefined,
    });
    expect(run?.kind === "ran" && run.result.progress).toMatchObject({ total: 5, done: 5, failed: 0 });
    expect(done.at(-1)).toBe(5);
    expect(tab.state.progress).toMatchObject({ done: 5 });
    expect(t.sandboxStats().reports).toBeGreaterThanOrEqual(5);
    const block = writtenRows(wb, 5);
    expect(block.get(0)?.[0]).toBe("STR status");
    expect([1, 2, 3, 4, 5].map((r) => block.get(r)?.[0])).toEqual(Array(5).fill("Created"));
    expect(told).toMatchObject({ groups: 1, closed: 1, spendChanged: 1 });
    expect(tab.state).toMatchObject({ estimated: undefined, running: undefined });
    expect(tab.runnable()).toBeUndefined();
    expect(await tab.screen("right")).toBeUndefined();
  }, 60_000);

  test("a note typed where the results go after the estimate: asked again, nothing sent, the estimate kept; confirmed, written further right", async () => {
    const { wb } = workbook(3, "Note");
    const { tab, told } = pane(wb, async () => client);
    await tab.readTable();
    await tab.dryRun();
    expect(tab.state.estimated?.destination.occupied).toBe(0);
    wb.type("Deals", 2, 7, "call back");
    const typed = wb.syncs;
    const arrivals = t.sandboxStats().arrivals;

    const asked = await tab.screen("right");
    expect(asked).toMatchObject({
      kind: "ask-again",
      estimated: { destination: { occupied: 1, first: { address: "Deals!H3", content: "call back" }, freeLeft: 8 } },
    });
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(told.groups).toBe(0);
    expect(tab.state.estimated?.destination.occupied).toBe(1);
    expect(tab.runnable()).toBe(3);

    const run = await tab.screen("right");
    expect(run).toMatchObject({ kind: "ran", job: { blockColumn: 8 } });
    expect(writtenRows(wb, 8).get(2)?.[0]).toBe("Created");
    // Read where the note is (the check found it), never written over: no range there was given values.
    const atNote = wb.ranges.filter(
      (r) => r.before >= typed && r.column <= 7 && r.column + r.columns > 7 && r.row <= 2 && r.row + r.rows > 2,
    );
    expect(atNote.length).toBeGreaterThan(0);
    for (const r of atNote) expect(Array.isArray(r.values)).toBe(false);
  }, 60_000);

  test("a run that cannot start (the token gone): failed, nothing sent, the estimate dropped; an undo step Excel could not close is said too", async () => {
    const { wb } = workbook(2, "Gone");
    let asks = 0;
    const { tab, told } = pane(
      wb,
      async () => {
        if (asks++ === 0) return client;
        throw new RelayCallError("STR_NOT_CONFIGURED", "Save a relay token in Settings.");
      },
      async () => {
        throw new Error("UndoNotSupported");
      },
    );
    await tab.readTable();
    await tab.dryRun();
    const arrivals = t.sandboxStats().arrivals;
    const run = await tab.screen("overwrite");
    expect(run).toMatchObject({ kind: "failed", error: { code: "STR_NOT_CONFIGURED" } });
    expect((run?.closeError as Error).message).toBe("UndoNotSupported");
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(told).toMatchObject({ groups: 1, closed: 1, spendChanged: 1 });
    expect(tab.state).toMatchObject({ estimated: undefined, running: undefined });
  }, 60_000);
});

describe("Cancel", () => {
  test("stops the run under way: nothing more is sent, the rows not reached say Stopped", async () => {
    const t = await startRelay({ RELAY_UPSTREAM_RPS: "40" });
    try {
      const client = new RelayClient({ baseUrl: await t.listen(), token: TEST_TOKEN });
      const { wb } = workbook(80, "Cancel");
      const { tab } = pane(wb, async () => client);
      await tab.readTable();
      await tab.dryRun();
      tab.cancel(); // nothing under way: nothing to stop
      const run = await tab.screen("right", (p) => {
        if (p.done === 5) tab.cancel();
      });
      expect(run?.kind === "ran" && run.result.stopped).toBe(true);
      expect(run?.kind === "ran" && run.result.progress.stopped).toBeGreaterThan(30);
      await t.relay.gateway.drain();
      expect(t.sandboxStats().arrivals).toBeLessThan(80);
      const statuses = [...writtenRows(wb, 5).entries()].filter(([r]) => r > 0).map(([, v]) => v[0]);
      expect(statuses).toContain("Stopped");
      expect(tab.state.running).toBeUndefined();
    } finally {
      await t.close();
    }
  }, 60_000);
});
