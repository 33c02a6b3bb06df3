import fs from "node:fs";
import path from "node:path";
import { readWorkbook, rowValues, screen, sheet, summaryOf, tempDir, testEnv } from "./support";

/**
 * Implausible inputs: the dry run lists rows outside the plausibility bounds, and a run sends them
 * only with --accept-unusual; without it they are marked in their row and cost nothing.
 */
describe("rows with unusual values", () => {
  const dir = tempDir();
  const input = path.join(dir, "unusual.csv");
  fs.writeFileSync(
    input,
    'Address,Price,Beds,Baths,Sleeps\n"1 Odd St, Austin TX",450,3,2,6\n"2 Fine St, Austin TX",450000,3,2,6\n',
  );

  test("the dry run lists them with their row, column and rule, and exits 1", async () => {
    const ran = await screen([input, "--dry-run"], testEnv(tempDir()));
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/Unusual\s+1\s+not sent without --accept-unusual/);
    expect(ran.stdout).toMatch(/row 2: Price 450 is under 10,000 USD/);
    expect(ran.stdout).toMatch(/Estimated cost\s+\$0\.20/);
    const accepted = await screen([input, "--dry-run", "--accept-unusual"], testEnv(tempDir()));
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/Estimated cost\s+\$0\.40/);
  }, 60_000);

  test("a run leaves them unsent and says why in their row; --accept-unusual sends them", async () => {
    const out = path.join(dir, "out.xlsx");
    const ran = await screen([input, "--out", out], testEnv(tempDir()));
    expect(ran.code).toBe(1);
    let book = await readWorkbook(out);
    const row2 = rowValues(sheet(book, "Screening"), 2);
    expect(row2).toContain("Failed");
    expect(String(row2.at(-1))).toMatch(/STR_UNUSUAL_INPUT.*Price 450 is under 10,000 USD.*--accept-unusual/);
    expect(summaryOf(book)["Cost (USD)"]).toBe(0.2);

    // Replacing the earlier results is on purpose here: --force.
    const again = await screen([input, "--out", out, "--accept-unusual", "--force"], testEnv(tempDir()));
    expect(again.code).toBe(0);
    book = await readWorkbook(out);
    expect(rowValues(sheet(book, "Screening"), 2)).toContain("Created");
    expect(summaryOf(book)["Cost (USD)"]).toBe(0.4);
  }, 60_000);
});
