import { AddressInfo } from "node:net";
import { RelayClient } from "../../src/client";
import { maxBid, parseMaxBidRule } from "../../src/model";
import { recognizeColumns } from "../../src/inputs";
import { analysisOf, findResultBlock } from "../../src/sheet";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { planScreening, runScreening } from "../../taskpane/screen";
import { TEST_TOKEN, startRelay } from "../support/relay";
import { installFakeExcel } from "../support/fake-excel";

/** The pane's Max bid column: STR.MAXBID of each screened row's analysis, beside its figures, free. */
test("a max-bid rule adds its column after the fields, each row's price as STR.MAXBID gives it, found again by its header", async () => {
  const t = await startRelay();
  try {
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (t.relay.app.server.address() as AddressInfo).port;
    const client = new RelayClient({ baseUrl: `http://127.0.0.1:${port}`, token: TEST_TOKEN });
    const grid = [
      ["Address", "Price", "Beds", "Baths", "Sleeps"],
      ["1 Bid St, Austin TX", 250000, 3, 2, 6],
      ["2 Bid St, Austin TX", 900000, 4, 3, 8],
    ];
    const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
    const table = await readSelectedTable(wb.run);
    const rule = parseMaxBidRule("cap-rate>=5%");
    if (!rule.ok) throw new Error(rule.message);
    const job = planScreening(table, recognizeColumns(table.headers), {
      strategy: "buy",
      numbers: "point",
      maxBid: rule.rule,
    });
    expect(job.fields.at(-1)?.label).toBe("Max bid (cap-rate>=5%)");
    const before = t.sandboxStats().arrivals;
    await runScreening({ client, run: wb.run }, job, { sandbox: true });
    // Two creates, and nothing more for the column.
    expect(t.sandboxStats().arrivals - before).toBe(2);

    const rows = new Map<number, unknown[]>();
    for (const r of wb.ranges)
      if (r.column === 5 && Array.isArray(r.values))
        (r.values as unknown[][]).forEach((v, i) => rows.set(r.row + i, v));
    const header = rows.get(0) as unknown[];
    const bidAt = header.indexOf("Max bid (cap-rate>=5%)");
    const idAt = header.indexOf("Analysis id");
    expect([1, 2].filter((r) => typeof (rows.get(r) as unknown[])[bidAt] === "number").length).toBeGreaterThan(0);
    for (const r of [1, 2]) {
      const id = (rows.get(r) as unknown[])[idAt] as string;
      const bid = maxBid(analysisOf((await t.get(`/v1/analyses/${id}`)).json)!, rule.rule);
      expect((rows.get(r) as unknown[])[bidAt]).toBe(bid.ok ? bid.priceUSD : "");
    }
    expect(findResultBlock(header)?.fields.at(-1)?.label).toBe("Max bid (cap-rate>=5%)");
  } finally {
    await t.close();
  }
}, 60_000);
