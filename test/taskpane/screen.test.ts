import { AddressInfo } from "node:net";
import { RelayCallError, RelayClient } from "../../src/client";
import { recognizeColumns } from "../../src/inputs";
import { maskBlock, resultBlockWidth } from "../../src/sheet";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { estimate, planScreening, runScreening } from "../../taskpane/screen";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { installFakeExcel, writtenRows } from "../support/fake-excel";

/**
 * Screening a table end to end in Node: read from the fake Excel's workbook, a dry run and a run
 * against the real relay on its sandbox, results written back in chunks.
 */
const HEADER = ["Property Address", "List Price ($)", "Beds", "Baths", "Sleeps", "Notes"];

function table(rows: number, street: string): unknown[][] {
  const grid: unknown[][] = [HEADER];
  for (let i = 1; i <= rows; i++)
    grid.push([
      `${i} ${street} St, Austin TX`,
      `$${400 + (i % 50)},000`,
      1 + (i % 4),
      1 + (i % 3),
      2 + (i % 6),
      "note",
    ]);
  return grid;
}

async function listening(env: Record<string, string> = {}): Promise<{ t: TestRelay; client: RelayClient }> {
  const t = await startRelay(env);
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (t.relay.app.server.address() as AddressInfo).port;
  return { t, client: new RelayClient({ baseUrl: `http://127.0.0.1:${port}`, token: TEST_TOKEN }) };
}

describe("screening a table from the pane, on the real relay", () => {
  let relay: { t: TestRelay; client: RelayClient };
  beforeAll(async () => {
    relay = await listening();
  });
  afterAll(() => relay.t.close());

  test("450 rows with a bad one and a blank one: dry run right, every row written, the bad row's error in its Warnings cell, ≤ 450/200 + 2 syncs", async () => {
    const grid = table(450, "Screen");
    (grid[10] as unknown[])[1] = "n/a";
    grid[20] = [];
    // A blank row ends the region around one cell (as in Excel), so the whole table is selected.
    const wb = installFakeExcel({
      sheets: [{ name: "Deals", rows: grid }],
      selection: { row: 0, column: 0, rows: 451, columns: HEADER.length },
    });
    const read = await readSelectedTable(wb.run);
    const mapping = recognizeColumns(maskBlock(read.headers, read.block));
    expect(mapping).toEqual(["fullAddress", "purchasePriceUSD", "bedrooms", "bathrooms", "accomodates", null]);
    const job = planScreening(read, mapping, { strategy: "buy", numbers: "point" });

    const e = await estimate(relay.client, [job]);
    expect(e).toMatchObject({
      items: 448,
      invalid: 1,
      cached: 0,
      toCreate: 448,
      estimatedCostUSD: 89.6,
      sandbox: true,
    });

    const before = wb.syncs;
    const progress: number[] = [];
    const result = await runScreening({ client: relay.client, run: wb.run }, job, {
      sandbox: true,
      onProgress: (p) => progress.push(p.done),
      // Chunks by count alone: a busy machine's slow answers would otherwise flush by age (excel.test).
      maxDelayMs: 600_000,
    });
    expect(result).toMatchObject({ stopped: false, writeError: undefined });
    expect(result.progress).toMatchObject({ total: 449, done: 449, failed: 1, cached: 0 });
    expect(result.progress.spentUSD).toBeCloseTo(89.6, 5);
    expect(progress.at(-1)).toBe(449);
    expect(wb.syncs - before).toBe(result.syncs);
    expect(result.syncs).toBeLessThanOrEqual(Math.ceil(450 / 200) + 2);
    expect(relay.t.sandboxStats()).toMatchObject({ reports: 448, duplicates: 0 });

    // Columns G onwards: the block header, then a status in every non-blank row.
    const block = writtenRows(wb, HEADER.length);
    expect(block.get(0)?.slice(0, 3)).toEqual(["STR status", "STR fetched", "Annual revenue, median"]);
    expect(block.get(0)?.at(-1)).toBe("Warnings (sandbox: simulated data)");
    for (let r = 1; r <= 450; r++) {
      const status = block.get(r)?.[0];
      if (r === 20) expect(status).toBe("");
      else if (r === 10) expect(status).toBe("Failed");
      else expect(status).toBe("Created");
    }
    expect(block.get(10)?.at(-1)).toMatch(/^✖ \[STR_VALIDATION\] List Price \(\$\) must be an amount/);
    // Each answered row says in its own cells that its figures are simulated.
    expect(block.get(1)?.at(-1)).toBe("⚠ SANDBOX: simulated data");
    expect(block.get(1)?.length).toBe(resultBlockWidth(job.fields));
    expect(typeof block.get(1)?.[2]).toBe("number");
    // The report link is clickable.
    expect(block.get(1)?.[job.fields.findIndex((f) => f.path === "url") + 2]).toMatch(/^=HYPERLINK\("http/);
    // Number formats go with every chunk's values.
    for (const r of wb.ranges.filter((x) => x.column === HEADER.length && x.row > 0)) {
      expect(r.numberFormat).toHaveLength(r.rows);
      expect(r.rows).toBeLessThanOrEqual(200);
    }
  }, 60_000);

  test("screened again: the answered rows come from the cache, nothing billed twice, the block replaced in place", async () => {
    const grid = table(30, "Again");
    const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
    const first = await readSelectedTable(wb.run);
    const job = planScreening(first, recognizeColumns(first.headers), { strategy: "buy", numbers: "point" });
    await runScreening({ client: relay.client, run: wb.run }, job, { sandbox: true });
    const reports = relay.t.sandboxStats().reports;

    // The workbook now holds the block: read it again from a workbook with those cells.
    const block = writtenRows(wb, HEADER.length);
    const again = grid.map((row, r) => [...row, ...(block.get(r) ?? [])]);
    const wb2 = installFakeExcel({ sheets: [{ name: "Deals", rows: again }] });
    const second = await readSelectedTable(wb2.run);
    expect(second.block?.start).toBe(HEADER.length);
    const job2 = planScreening(second, recognizeColumns(maskBlock(second.headers, second.block)), {
      strategy: "buy",
      numbers: "point",
    });
    expect(job2.blockColumn).toBe(HEADER.length);
    expect(await estimate(relay.client, [job2])).toMatchObject({
      items: 30,
      cached: 30,
      toCreate: 0,
      estimatedCostUSD: 0,
    });
    const result = await runScreening({ client: relay.client, run: wb2.run }, job2, { sandbox: true });
    expect(result.progress).toMatchObject({ done: 30, cached: 30, spentUSD: 0 });
    expect(relay.t.sandboxStats().reports).toBe(reports);
    expect(writtenRows(wb2, HEADER.length).get(5)?.[0]).toBe("Cached");
  }, 60_000);

  test("screened again 40 days later: cached and free, each row marked stale with the price of a refresh", async () => {
    const grid = table(3, "Stale");
    const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
    const job = planScreening(await readSelectedTable(wb.run), recognizeColumns(HEADER), {
      strategy: "buy",
      numbers: "point",
    });
    await runScreening({ client: relay.client, run: wb.run }, job, { sandbox: true });
    const now = Date.now();
    jest.spyOn(Date, "now").mockReturnValue(now + 40 * 86_400_000);
    try {
      const result = await runScreening({ client: relay.client, run: wb.run }, job, { sandbox: true });
      expect(result.progress).toMatchObject({ done: 3, cached: 3, spentUSD: 0 });
    } finally {
      jest.restoreAllMocks();
    }
    const rows = [...writtenRows(wb, HEADER.length)].filter(([r]) => r > 0).map(([, cells]) => cells);
    expect(rows.at(-1)?.at(-1)).toBe(
      "⚠ SANDBOX: simulated data | STALE: fetched 40 days ago; a refresh costs up to 0.20 USD",
    );
  }, 60_000);
});

describe("Cancel", () => {
  test("stops the run: the sandbox gets no further creates, unanswered rows say Stopped", async () => {
    const relay = await listening({ RELAY_UPSTREAM_RPS: "40" });
    try {
      const grid = table(200, "Cancel");
      const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
      const read = await readSelectedTable(wb.run);
      const job = planScreening(read, recognizeColumns(read.headers), { strategy: "buy", numbers: "point" });
      const controller = new AbortController();
      const result = await runScreening({ client: relay.client, run: wb.run }, job, {
        sandbox: true,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.done === 30) controller.abort(new RelayCallError("STR_CANCELLED", "Cancelled in the test."));
        },
      });
      expect(result.stopped).toBe(true);
      expect(result.progress.done + result.progress.stopped).toBe(200);
      expect(result.progress.stopped).toBeGreaterThan(100);
      // Every call the batch started has ended, sent or dropped: nothing more can go out.
      await relay.t.relay.gateway.drain();
      expect(relay.t.sandboxStats().arrivals).toBeLessThan(200);

      const block = writtenRows(wb, HEADER.length);
      const statuses = [...Array(200).keys()].map((i) => block.get(i + 1)?.[0]);
      expect(statuses.filter((s) => s === "Created").length).toBeGreaterThanOrEqual(30);
      expect(statuses.filter((s) => s === "Stopped").length).toBeGreaterThan(100);
      expect(statuses.every((s) => s === "Created" || s === "Stopped")).toBe(true);
      const stopped = [...block.values()].find((v) => v[0] === "Stopped");
      expect(stopped?.at(-1)).toMatch(/^✖ \[STR_CANCELLED\] .*screen the table again/);
    } finally {
      await relay.t.close();
    }
  }, 60_000);
});
