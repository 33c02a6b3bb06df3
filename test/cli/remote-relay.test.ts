import fs from "node:fs";
import path from "node:path";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { MESSY_CSV, readWorkbook, screen, summaryOf, tempDir, testEnv } from "./support";

/** str-screen through a relay of the user's (STR_RELAY_URL + STR_RELAY_TOKEN) instead of its own. */
describe("screening through a running relay", () => {
  let t: TestRelay;
  let url: string;
  const dir = tempDir();
  // RELAY_DATA_DIR points where nothing may be written: the remote relay keeps the store.
  const env = () => testEnv(path.join(dir, "unused"), { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN });

  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const address = t.relay.app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => t.close());

  test("sends the rows to that relay, which creates each distinct request once", async () => {
    const out = path.join(dir, "remote.xlsx");
    const r = await screen([MESSY_CSV, "--out", out], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Relay: relay at ${url}`);
    expect(r.stderr).not.toContain(TEST_TOKEN);
    expect(r.stdout).not.toContain(TEST_TOKEN);
    // Nine rows screened, one of them a duplicate: eight reports, all on this relay's sandbox.
    expect(t.sandboxStats().reports).toBe(8);
    const book = await readWorkbook(out);
    const summary = summaryOf(book);
    expect(summary).toMatchObject({
      Relay: `relay at ${url}`,
      Mode: "Sandbox (simulated data)",
      Created: 8,
      Duplicates: 1,
    });
    // The token is in no cell of any sheet (the workbook travels: e-mail, shared drives).
    const texts: string[] = [];
    book.eachSheet((ws) => ws.eachRow((row) => row.eachCell((cell) => void texts.push(JSON.stringify(cell.value)))));
    expect(texts.length).toBeGreaterThan(50);
    expect(texts.filter((text) => text.includes(TEST_TOKEN))).toEqual([]);
    expect(fs.existsSync(path.join(dir, "unused"))).toBe(false);
  });

  test("a second run sends nothing: its dry run estimates 0 USD, and the run is all cached", async () => {
    const arrivals = t.sandboxStats().arrivals;
    const dry = await screen([MESSY_CSV, "--dry-run"], env());
    expect(dry.stdout).toMatch(/Estimated cost\s+\$0\.00/);
    const again = await screen([MESSY_CSV, "--out", path.join(dir, "again.xlsx")], env());
    expect(again.stdout).toContain("(0 created, 9 cached, 0 duplicates)");
    expect(t.sandboxStats().arrivals).toBe(arrivals);
  });

  test("STR_RELAY_URL without STR_RELAY_TOKEN (or the other way round) is a configuration error naming both", async () => {
    const partials: Record<string, string>[] = [
      { STR_RELAY_URL: "http://127.0.0.1:9" },
      { STR_RELAY_TOKEN: TEST_TOKEN },
    ];
    for (const partial of partials) {
      const r = await screen([MESSY_CSV, "--dry-run"], { ...testEnv(dir), ...partial });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/STR_RELAY_URL and STR_RELAY_TOKEN go together/);
      expect(r.stderr).not.toContain(TEST_TOKEN);
    }
  });

  test("a wrong token, a relay that is not there, or a plain-http URL off this machine exits 2 before anything is sent", async () => {
    const arrivals = t.sandboxStats().arrivals;
    const wrong = await screen([MESSY_CSV, "--out", path.join(dir, "x.xlsx")], {
      ...env(),
      STR_RELAY_TOKEN: "not-the-token-0123456789",
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/\[STR_UNAUTHORIZED\].*check STR_RELAY_TOKEN/);
    expect(wrong.stderr).not.toContain("not-the-token-0123456789");
    const gone = await screen([MESSY_CSV, "--dry-run"], { ...env(), STR_RELAY_URL: "http://127.0.0.1:9" });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/\[STR_RELAY_UNREACHABLE\]/);
    const plain = await screen([MESSY_CSV, "--dry-run"], { ...env(), STR_RELAY_URL: "http://relay.example.com" });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/STR_RELAY_URL must be an https:\/\/ URL/);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
  });
});

/** A token with a daily budget of its own: the relay's dry run answers what is left for that token, the smaller budget. */
describe("screening with a token that has its own budget", () => {
  let t: TestRelay;
  let url: string;
  const dir = tempDir();
  const env = () => testEnv(path.join(dir, "unused"), { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN });

  beforeAll(async () => {
    t = await startRelay({
      RELAY_TOKENS: `analyst:${TEST_TOKEN},colleague:rt_colleague_0123456789ab`,
      RELAY_TOKEN_BUDGETS_USD_PER_DAY: "analyst:0.5",
    });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const address = t.relay.app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => t.close());

  test("the dry run and the run's note say the budget left is this token's, not the relay's", async () => {
    const dry = await screen([MESSY_CSV, "--dry-run"], env());
    expect(dry.stdout).toMatch(
      /Estimated cost\s+\$1\.80\s+at most \(sandbox: simulated money\); budget left today for this token \$0\.50/,
    );
    expect(dry.stdout).not.toMatch(/relay's budget left/);
    const run = await screen([MESSY_CSV, "--out", path.join(dir, "own-budget.xlsx")], env());
    const said = run.stdout + run.stderr;
    expect(said).toContain("Note: the budget left today for this token ($0.50) is less than the estimate");
    expect(said).toContain("STR_CALLER_BUDGET_EXCEEDED");
    expect(said).not.toMatch(/relay's budget left/);
    // What fits in the token's 0.50 USD is sent; the rest is refused before it is sent.
    expect(run.code).toBe(1);
    expect(t.sandboxStats().billedCents).toBeLessThanOrEqual(50);
    expect(t.sandboxStats().reports).toBeLessThan(8);
  });
});
