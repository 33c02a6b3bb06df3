import fs from "node:fs";
import path from "node:path";
import { columnOf, readWorkbook, rowValues, screen, tempDir, testEnv } from "../cli/support";
import { STAND_IN_KEY, StandIn, startStandIn } from "../support/live-standin";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { PRICE, liveData } from "./shapes";

/**
 * Enhance never erases: an enhance answer that holds no usable analysis (empty data, or figures
 * without an analysis id) leaves the row's figures and id as they were, says so and what it cost,
 * and is sent again when the row is enhanced again.
 */
describe("an enhancement without a usable analysis keeps the row", () => {
  let standIn: StandIn;
  let t: TestRelay;
  let enhanceAnswer: unknown;
  const dir = tempDir("str-enhance-drift-");
  let env: Record<string, string>;
  const out = path.join(dir, "deals.xlsx");

  beforeAll(async () => {
    standIn = await startStandIn(({ path: p }) =>
      p.endsWith("/enhance")
        ? { status: 200, body: enhanceAnswer }
        : { status: 200, body: { success: true, data: liveData("an_live_1") } },
    );
    t = await startRelay({ STR_API_KEY: STAND_IN_KEY, STR_API_BASE_URL: standIn.url });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
    env = testEnv(path.join(dir, "unused"), { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN });
    const csv = path.join(dir, "deals.csv");
    fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n"1 Beach Rd, Destin FL",${PRICE},3,2,8\n`);
    expect((await screen([csv, "--out", out, "--strategy", "buy"], env)).code).toBe(0);
  });
  afterAll(async () => {
    await t.close();
    await standIn.close();
  });

  async function row() {
    const book = await readWorkbook(out);
    const ws = book.worksheets[0]!;
    const values = rowValues(ws, 2);
    return {
      revenue: values[columnOf(ws, 1, "Annual revenue, median") - 1],
      id: values[columnOf(ws, 1, "Analysis id") - 1],
      warnings: String(values[columnOf(ws, 1, /^Warnings/) - 1] ?? ""),
    };
  }

  test("empty data: the figures and id stay, nothing billed, and enhancing again sends again", async () => {
    const before = await row();
    expect(before).toMatchObject({ revenue: 43_161.25, id: "an_live_1" });
    enhanceAnswer = { success: true, data: {}, warnings: ["addAIComps failed: the AI step could not complete"] };
    const run = await screen([out, "--out", out, "--enhance", "comps"], env);
    expect(run.stderr).toMatch(/1 rows were not enhanced: every AI step failed, nothing was billed/);
    const after = await row();
    expect(after).toMatchObject({ revenue: 43_161.25, id: "an_live_1" });
    expect(after.warnings).toMatch(/Not enhanced, nothing billed \(enhance it again to retry\)/);
    const retry = await screen([out, "--dry-run", "--enhance", "comps"], env);
    expect(retry.stdout).toMatch(/Estimated cost\s+\$0\.10/);
  });

  test("figures without an analysis id: not used, the row keeps its own, the bill is said, and it is sent again", async () => {
    const { _id: _none, ...withoutId } = liveData("x");
    enhanceAnswer = { success: true, data: { ...withoutId, quartiles: undefined, ratePerNightUSD: 999 } };
    const calls = standIn.calls.length;
    const run = await screen([out, "--out", out, "--enhance", "comps"], env);
    expect(run.stderr).toMatch(/1 rows were not enhanced: their answers held no usable analysis \(0\.10 USD billed\)/);
    const after = await row();
    expect(after).toMatchObject({ revenue: 43_161.25, id: "an_live_1" });
    expect(after.warnings).toMatch(/Not enhanced, 0\.10 USD billed \(enhance it again to retry\)/);
    expect(after.warnings).toMatch(/had no analysis id; its figures were not used/);
    expect(standIn.calls.length).toBe(calls + 1);
    await screen([out, "--out", out, "--enhance", "comps"], env);
    expect(standIn.calls.length).toBe(calls + 2);
  });
});
