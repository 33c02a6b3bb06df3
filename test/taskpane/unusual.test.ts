import { AddressInfo } from "node:net";
import { RelayClient } from "../../src/client";
import { recognizeColumns } from "../../src/inputs";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { refreshTables } from "../../taskpane/refresh";
import { ScreeningProgress, estimate, planScreening, runScreening } from "../../taskpane/screen";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { installFakeExcel } from "../support/fake-excel";

/**
 * Implausible inputs in the pane: the plan holds rows outside the plausibility bounds back, the dry
 * run counts them, and only the user's confirmation (acceptUnusual, the pane's checkbox) sends them.
 */
const GRID = [
  ["Address", "Price", "Monthly rent", "Beds", "Baths", "Sleeps"],
  ["1 Odd St, Austin TX", 450, "", 3, 2, 6],
  ["2 Fine St, Austin TX", 450000, "", 3, 2, 6],
  ["3 Rent St, Austin TX", 450000, 450000, 3, 2, 6],
];

describe("unusual rows in the pane", () => {
  let t: TestRelay;
  let client: RelayClient;
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    client = new RelayClient({
      baseUrl: `http://127.0.0.1:${(t.relay.app.server.address() as AddressInfo).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  test("held back unless confirmed: the estimate counts them, the run marks them unsent and bills only the others", async () => {
    const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: GRID }] });
    const table = await readSelectedTable(wb.run);
    const mapping = recognizeColumns(table.headers);
    const job = planScreening(table, mapping, { strategy: "buy", numbers: "point" });
    expect(job.rows.map((r) => r.kind)).toEqual(["unusual", "request", "unusual"]);
    const held = job.rows[2];
    if (held?.kind !== "unusual") throw new Error("row 4 should be held");
    expect(held.issues.map((i) => `${i.path} ${i.message}`)).toEqual([
      "Monthly rent 450000 is over 50,000 USD a month",
      "Monthly rent 450000 is above the price / 12",
    ]);

    expect(await estimate(client, [job])).toMatchObject({ items: 1, unusual: 2, estimatedCostUSD: 0.2 });
    const before = t.sandboxStats().reports;
    const result = await runScreening({ client, run: wb.run }, job, { sandbox: true });
    expect(t.sandboxStats().reports - before).toBe(1);
    // Rows held back are counted as held, not failed (issue 39).
    expect(result.progress).toMatchObject({ total: 3, done: 3, failed: 0, held: 2, spentUSD: 0.2 });
    const cells = new Map<number, unknown[]>();
    for (const r of wb.ranges)
      if (r.column === GRID[0]!.length && Array.isArray(r.values))
        (r.values as unknown[][]).forEach((v, i) => cells.set(r.row + i, v));
    expect(cells.get(1)?.[0]).toBe("Failed");
    expect(String(cells.get(1)?.at(-1))).toMatch(/STR_UNUSUAL_INPUT.*Price 450 is under 10,000 USD.*tick/);
    expect(cells.get(2)?.[0]).toBe("Created");

    const confirmed = planScreening(table, mapping, { strategy: "buy", numbers: "point", acceptUnusual: true });
    expect(confirmed.rows.map((r) => r.kind)).toEqual(["request", "request", "request"]);
    expect(await estimate(client, [confirmed])).toMatchObject({ items: 3, unusual: 0 });
  }, 60_000);

  test("a refresh of two such tables sums the held rows apart from the failed ones", async () => {
    const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: GRID }] });
    const table = await readSelectedTable(wb.run);
    const job = planScreening(table, recognizeColumns(table.headers), { strategy: "buy", numbers: "point" });
    const seen: ScreeningProgress[] = [];
    const result = await refreshTables({ client, run: wb.run }, [job, job], {
      sandbox: true,
      onProgress: (p) => seen.push(p),
    });
    expect(result.progress).toMatchObject({ total: 6, done: 6, failed: 0, held: 4 });
    expect(seen.at(-1)).toMatchObject({ held: 4, failed: 0 });
  }, 60_000);
});
