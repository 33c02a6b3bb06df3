import { RefreshGate, RelayCallError, RelayClient } from "../../src/client";
import { defaultScreeningFields, resultBlockHeader } from "../../src/sheet";
import { UndoGroup } from "../../taskpane/excel/host";
import { RefreshTab, RefreshTabDeps, olderThanDays } from "../../taskpane/refresh-tab";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { FakeExcel, installFakeExcel, writtenRows } from "../support/fake-excel";

/**
 * The Refresh tab without a browser: a sheet's screened table found and priced (nothing sent), then
 * run again past the cache on the real relay's sandbox, as the view forwards the user's clicks.
 * Where a rewrite would land on the user's cells, the one rule of overwrite.ts decides, as for a
 * screening: cells typed there after the plan are asked about again, and nothing is sent meanwhile.
 */
const FIELDS = defaultScreeningFields("buy");

/**
 * A buy table screened earlier whose Warnings column the user replaced with notes of their own: the
 * block is rewritten as wide as its fields need, so the notes column is in its way.
 */
function screenedWithNotes(notes: string[]) {
  const header = resultBlockHeader(FIELDS, true).map((c) => c.value);
  const grid: unknown[][] = [["Address", "Price", "Beds", "Baths", "Guests", ...header.slice(0, -1), "My notes"]];
  notes.forEach((note, i) =>
    grid.push([`${i + 1} Note Ln, Austin TX`, 400000 + i, 3, 2, 6, "Created", 45800, ...FIELDS.map(() => 1), note]),
  );
  const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
  return { wb, notesColumn: 5 + 2 + FIELDS.length };
}

function pane(wb: FakeExcel, client: () => Promise<RelayClient>) {
  const told = { modes: [] as string[], spendChanged: 0, groups: 0, closed: 0, tables: [] as number[] };
  const deps: RefreshTabDeps = {
    run: wb.run,
    undoGroup: (): UndoGroup => {
      told.groups++;
      return { run: wb.run, close: async () => void told.closed++ };
    },
    gate: new RefreshGate(),
    client,
    setMode: (mode) => told.modes.push(mode),
    spendChanged: () => told.spendChanged++,
  };
  return { tab: new RefreshTab(deps), told };
}

const SHEET = { strategy: "buy", olderThan: "" } as const;

describe('"older than"', () => {
  test("blank is everything; else a whole number of days, 0 or more, or said what is wrong", () => {
    expect(olderThanDays(" ")).toBeUndefined();
    expect(olderThanDays("30")).toBe(30);
    expect(olderThanDays("0")).toBe(0);
    for (const bad of ["-1", "2.5", "a month"])
      expect(() => olderThanDays(bad)).toThrow(
        `Older than must be a whole number of days, 0 or more (or blank for all); got "${bad}".`,
      );
  });
});

describe("Find, then Refresh, on the relay's sandbox", () => {
  let t: TestRelay;
  let client: RelayClient;
  beforeAll(async () => {
    t = await startRelay();
    client = new RelayClient({ baseUrl: await t.listen(), token: TEST_TOKEN });
  });
  afterAll(() => t.close());

  test("the sheet's screened table priced with nothing sent, and what is in its way shown; a change of scope forgets the plan", async () => {
    const { wb } = screenedWithNotes(["call the owner", "", ""]);
    const { tab, told } = pane(wb, async () => client);
    const arrivals = t.sandboxStats().arrivals;
    const found = await tab.find("sheet", SHEET);
    expect(found).toMatchObject({ nothing: false, offer: { offered: true }, totalUSD: 0.6 });
    expect(found.plan.jobs.map((j) => j.items.length)).toEqual([3]);
    // "My notes" and the one note under it.
    expect(found.plan.destinations).toMatchObject([{ occupied: 2, first: { content: "My notes" } }]);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(told.modes).toEqual(["sandbox"]);
    expect(tab.runnable()).toBe(true);
    expect(tab.retryable()).toBeUndefined();
    expect(await tab.retry()).toBeUndefined();
    tab.forget();
    expect(tab.runnable()).toBe(false);
    expect(await tab.refresh("right")).toBeUndefined();
  }, 60_000);

  test("further right, the default: the table run again past the cache beside the notes, one undo step, with progress", async () => {
    const { wb, notesColumn } = screenedWithNotes(["call the owner", "", ""]);
    const { tab, told } = pane(wb, async () => client);
    await tab.find("sheet", SHEET);
    const reports = t.sandboxStats().reports;
    const done: number[] = [];
    const outcome = await tab.refresh("right", {
      tables: (total) => told.tables.push(total),
      progress: (p) => done.push(p.done),
    });
    expect(outcome).toMatchObject({ kind: "done", formulas: undefined, cancelled: false });
    expect(outcome?.kind === "done" && outcome.tables?.progress).toMatchObject({ total: 3, done: 3, failed: 0 });
    expect(t.sandboxStats().reports).toBe(reports + 3);
    expect(told).toMatchObject({ tables: [3], groups: 1, closed: 1, spendChanged: 1 });
    expect(done.at(-1)).toBe(3);
    const block = writtenRows(wb, notesColumn + 1);
    expect(block.get(0)?.[0]).toBe("STR status");
    expect([1, 2, 3].map((r) => typeof block.get(r)?.[0])).toEqual(["string", "string", "string"]);
    expect(writtenRows(wb, 5).size).toBe(0);
    expect(tab.state).toMatchObject({ plan: undefined, running: undefined });
  }, 60_000);

  test("Overwrite, and a note typed in the way after the plan: asked again, nothing sent, the plan kept with what is in the way now; confirmed, written over", async () => {
    const { wb, notesColumn } = screenedWithNotes(["call the owner", "", ""]);
    const { tab, told } = pane(wb, async () => client);
    await tab.find("sheet", SHEET);
    wb.type("Deals", 2, notesColumn, "ring Tuesday");
    const arrivals = t.sandboxStats().arrivals;

    const asked = await tab.refresh("overwrite");
    expect(asked).toMatchObject({ kind: "ask-again", destinations: [{ occupied: 3 }] });
    expect(tab.state.plan?.destinations).toMatchObject([{ occupied: 3 }]);
    expect(tab.runnable()).toBe(true);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(told.groups).toBe(0);

    const outcome = await tab.refresh("overwrite");
    expect(outcome).toMatchObject({ kind: "done", tables: { progress: { done: 3 } } });
    const block = writtenRows(wb, 5);
    expect(block.get(0)?.[0]).toBe("STR status");
    expect(block.get(0)?.at(-1)).toBe("Warnings (sandbox: simulated data)");
    expect(block.get(0)?.length).toBe(notesColumn - 5 + 1);
  }, 60_000);

  test("further right, and a note typed since in the columns the results were to take: asked again, with the free columns further on", async () => {
    const { wb, notesColumn } = screenedWithNotes(["call the owner", "", ""]);
    const { tab } = pane(wb, async () => client);
    await tab.find("sheet", SHEET);
    expect(tab.state.plan?.destinations).toMatchObject([{ occupied: 2, freeLeft: notesColumn + 1 }]);
    wb.type("Deals", 1, notesColumn + 1, "sold");
    const arrivals = t.sandboxStats().arrivals;
    const asked = await tab.refresh("right");
    expect(asked).toMatchObject({ kind: "ask-again", destinations: [{ occupied: 2, freeLeft: notesColumn + 2 }] });
    expect(t.sandboxStats().arrivals).toBe(arrivals);

    expect(await tab.refresh("right")).toMatchObject({ kind: "done", tables: { progress: { done: 3 } } });
    expect(writtenRows(wb, notesColumn + 2).get(0)?.[0]).toBe("STR status");
  }, 60_000);

  test("a refresh that cannot start (the token gone): failed, nothing sent, the plan dropped", async () => {
    const { wb } = screenedWithNotes(["", ""]);
    let asks = 0;
    const { tab, told } = pane(wb, async () => {
      if (asks++ === 0) return client;
      throw new RelayCallError("STR_NOT_CONFIGURED", "Save a relay token in Settings.");
    });
    await tab.find("sheet", SHEET);
    const arrivals = t.sandboxStats().arrivals;
    const outcome = await tab.refresh("right");
    expect(outcome).toMatchObject({ kind: "failed", formulas: undefined, error: { code: "STR_NOT_CONFIGURED" } });
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    expect(told).toMatchObject({ groups: 0, spendChanged: 1 });
    expect(tab.runnable()).toBe(false);
  }, 60_000);
});
