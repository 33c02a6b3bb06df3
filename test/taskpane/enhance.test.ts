import { AddressInfo } from "node:net";
import { RelayClient } from "../../src/client";
import { recognizeColumns } from "../../src/inputs";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { planShortlist, readShortlist } from "../../taskpane/enhance-shortlist";
import { estimate, planScreening, runScreening } from "../../taskpane/screen";
import { TEST_TOKEN, buyBodyWithPhotos, startRelay } from "../support/relay";
import { installFakeExcel, writtenRows } from "../support/fake-excel";

/**
 * "Enhance with AI" in the pane, on the real relay and its sandbox: the selected rows of a screened
 * table, priced by the dry run, enhanced in place; the price shown is what the ledger bills, to the cent.
 */
const HEADER = ["Address", "Price", "Beds", "Baths", "Sleeps"];

async function listening(options: Parameters<typeof startRelay>[1] = {}) {
  const t = await startRelay({}, options);
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (t.relay.app.server.address() as AddressInfo).port;
  return { t, client: new RelayClient({ baseUrl: `http://127.0.0.1:${port}`, token: TEST_TOKEN }) };
}

/** Four buy rows whose addresses have photos enough for AI comparables, screened; the sheet's grid with the block. */
async function screenedGrid(client: RelayClient, from: number): Promise<unknown[][]> {
  const grid: unknown[][] = [HEADER];
  let next = from;
  for (let i = 0; i < 4; i++) {
    const body = buyBodyWithPhotos(true, next);
    next = Number(/^(\d+)/.exec(body.fullAddress)?.[1]) - 11;
    grid.push([body.fullAddress, 400000 + i * 10000, 3, 2, 6]);
  }
  const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
  const table = await readSelectedTable(wb.run);
  const job = planScreening(table, recognizeColumns(table.headers), { strategy: "buy", numbers: "point" });
  await runScreening({ client, run: wb.run }, job, { sandbox: true });
  return grid.map((row, r) => [...row, ...(writtenRows(wb, HEADER.length).get(r) ?? [])]);
}

/** The table read as the Screen tab reads it, then rows 2–3 selected for the shortlist. */
async function shortlist(grid: unknown[][]) {
  const whole = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
  const table = await readSelectedTable(whole.run);
  const wb = installFakeExcel({
    sheets: [{ name: "Deals", rows: grid }],
    selection: { row: 2, column: 0, rows: 2, columns: 1 },
  });
  const { selected, ids } = await readShortlist(wb.run, table);
  return { wb, table, job: planShortlist(table, selected, ids, { addAIComps: true, addAIExpenseEstimates: true }) };
}

describe("Enhance with AI on a shortlist, from the pane", () => {
  test("the price shown before sending is what the ledger bills, to the cent; only the selected rows are rewritten", async () => {
    const { t, client } = await listening();
    try {
      const grid = await screenedGrid(client, 0);
      const { wb, job } = await shortlist(grid);
      expect(job.items).toHaveLength(2);
      expect(job.items.every((i) => i.strategy === "enhance")).toBe(true);
      const price = await estimate(client, [job]);
      expect(price.estimatedCostUSD).toBe(0.4);

      const before = (await client.usage()).today.costUSD;
      const result = await runScreening({ client, run: wb.run }, job, { sandbox: true });
      const billedCents = Math.round((await client.usage()).today.costUSD * 100) - Math.round(before * 100);
      expect(billedCents).toBe(Math.round(price.estimatedCostUSD * 100));
      expect(result.progress.spentUSD).toBe(0.4);
      const written = writtenRows(wb, HEADER.length);
      expect([...written.keys()].filter((r) => r > 0).sort()).toEqual([2, 3]);
      // In place: the same columns, the rows' own figures replaced by the enhanced analysis's.
      expect(written.get(2)?.[0]).toBe("Created");
      expect(written.get(0)?.length).toBe((grid[0] as unknown[]).length - HEADER.length);
    } finally {
      await t.close();
    }
  }, 60_000);

  test("an enhancement whose every AI step fails is free and keeps the row's figures, with the AI's warnings", async () => {
    const { t, client } = await listening({ sandbox: { faults: { aiFailureRate: 1, aiTimeoutRate: 0 } } });
    try {
      const grid = await screenedGrid(client, 300);
      const { wb, job, table } = await shortlist(grid);
      const revenueAt =
        (table.block?.start ?? 0) + 2 + (table.block?.fields.findIndex((f) => f.path === "revenue.p50") ?? 0);
      const before = (await client.usage()).today.costUSD;
      await runScreening({ client, run: wb.run }, job, { sandbox: true });
      expect((await client.usage()).today.costUSD).toBe(before);
      const row = writtenRows(wb, HEADER.length).get(2) as unknown[];
      expect(row[revenueAt - HEADER.length]).toBe((grid[2] as unknown[])[revenueAt]);
      expect(String(row.at(-1))).toMatch(/Not enhanced, nothing billed \(enhance it again to retry\)/);
      // Not kept by the relay: priced again, so it can be retried.
      expect((await estimate(client, [job])).estimatedCostUSD).toBe(0.4);
    } finally {
      await t.close();
    }
  }, 60_000);
});
