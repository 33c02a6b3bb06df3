import fs from "node:fs";
import path from "node:path";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { readWorkbook, rowValues, screen, sheet, tempDir, testEnv } from "./support";

/*
 * --resend-unknown: rows whose earlier call has an unknown outcome (the service may have billed it)
 * are refused by a plain run, and before this option could be sent again only by re-buying the whole
 * table (--refresh). Now those rows alone are sent again, after the dry run has priced them.
 */
describe("str-screen --resend-unknown", () => {
  let t: TestRelay;
  let url: string;
  const dir = tempDir();
  const env = () => testEnv(path.join(dir, "unused"), { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN });

  beforeAll(async () => {
    t = await startRelay();
    url = await t.listen();
  });
  afterAll(() => t.close());

  test("only the unknown-outcome rows are sent again, priced first; the rest come from the cache", async () => {
    const csv = path.join(dir, "deals.csv");
    const rows = Array.from({ length: 4 }, (_, i) => `"${600 + i} Pine St, Austin TX",${300000 + i * 1000},3,2,6`);
    fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n${rows.join("\n")}\n`);
    // Two rows screened cleanly; then the service drops its answers after billing: two unknown outcomes.
    fs.writeFileSync(path.join(dir, "first.csv"), `Address,Price,Beds,Baths,Guests\n${rows.slice(0, 2).join("\n")}\n`);
    expect((await screen([path.join(dir, "first.csv"), "--out", path.join(dir, "first.xlsx")], env())).code).toBe(0);
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 1 });
    await screen([csv, "--out", path.join(dir, "lost.xlsx")], env());
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 0 });
    const reportsBefore = t.sandboxStats().reports;

    const dry = await screen([csv, "--dry-run"], env());
    expect(dry.stdout).toMatch(
      /Unknown outcome\s+2\s+sent before, outcome unknown or billed unusable: --resend-unknown sends them again/,
    );
    const priced = await screen([csv, "--dry-run", "--resend-unknown"], env());
    expect(priced.stdout).toMatch(/To create\s+2/);
    expect(priced.stdout).toMatch(/Estimated cost\s+\$0\.40/);
    expect(t.sandboxStats().reports).toBe(reportsBefore);

    const out = path.join(dir, "resent.xlsx");
    const run = await screen([csv, "--out", out, "--resend-unknown"], env());
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/--resend-unknown: 2 rows whose earlier call has an unknown outcome are sent again/);
    expect(t.sandboxStats().reports).toBe(reportsBefore + 2);
    const ws = sheet(await readWorkbook(out), "Screening");
    expect(Array.from({ length: 4 }, (_, i) => rowValues(ws, i + 2)[5])).toEqual([
      "Cached",
      "Cached",
      "Created",
      "Created",
    ]);
  }, 60_000);

  test("--resend-unknown with --refresh is refused, naming both", async () => {
    const ran = await screen([path.join(dir, "deals.csv"), "--dry-run", "--refresh", "--resend-unknown"], env());
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--resend-unknown cannot be given with --refresh/);
  });
});
