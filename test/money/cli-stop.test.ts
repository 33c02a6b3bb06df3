import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TEST_TOKEN, startRelay } from "../support/relay";
import { readWorkbook, rowValues, screen, sheet, summaryOf, tempDir, testEnv } from "../cli/support";

/*
 * Ctrl-C in str-screen, counted: the service's bill (the sandbox's), the relay's ledger and what the
 * workbook and the closing lines say are the same, to the cent. Rows whose calls were sent before the
 * stop are billed: they must read Created, with their cost, not "Stopped" (before: "Stopped before
 * any row was answered" while 2.00 USD was billed, and the Cost line left them out).
 */
describe("str-screen stopped mid-run", () => {
  test("rows billed before the stop are written as created, with their cost; bill = ledger = told", async () => {
    // Reports of 0.5–1.5 s, five sends a second: at the stop, several calls are on their way.
    const t = await startRelay({ RELAY_UPSTREAM_RPS: "5" }, { sandbox: { timeScale: 0.05 } });
    try {
      const url = await t.listen();
      const dir = tempDir();
      const csv = path.join(dir, "stop.csv");
      const rows = Array.from({ length: 30 }, (_, i) => `"${400 + i} Elm St, Austin TX",${300000 + i * 1000},3,2,6`);
      fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n${rows.join("\n")}\n`);
      const out = path.join(dir, "stop.xlsx");
      const controller = new AbortController();
      const run = screen(
        [csv, "--out", out],
        testEnv(dir, { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN }),
        controller.signal,
      );
      // Stop once a few calls have reached the service, some of them still being answered.
      while (t.sandboxStats().arrivals < 6) await sleep(50);
      controller.abort();
      const ran = await run;
      expect(ran.code).toBe(1);

      // The service bills a report as it finishes it: let the calls already sent end.
      for (let last = -1; t.sandboxStats().billedCents !== last; await sleep(2500)) last = t.sandboxStats().billedCents;
      const billedCents = t.sandboxStats().billedCents;
      const ledgerCents = Math.round(((await t.get("/v1/usage")).json.today.costUSD as number) * 100);
      const book = await readWorkbook(out);
      const summary = summaryOf(book);
      const ws = sheet(book, "Screening");
      const statuses = Array.from({ length: 30 }, (_, i) => rowValues(ws, i + 2)[5]);
      const created = statuses.filter((s) => s === "Created").length;
      expect(billedCents).toBeGreaterThan(0);
      expect(ledgerCents).toBe(billedCents);
      expect(Math.round((summary["Cost (USD)"] as number) * 100)).toBe(billedCents);
      expect(created * 20).toBe(billedCents);
      expect(statuses.filter((s) => s === "Stopped").length).toBe(30 - created);
      expect(ran.stdout).toMatch(new RegExp(`Cost: \\$${(billedCents / 100).toFixed(2)}`));
    } finally {
      await t.close();
    }
  }, 60_000);
});
