import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RelayAnswer } from "../../src/contract";
import { LocalReports } from "../../src/cli/local-reports";
import { Outcomes } from "../../src/cli/outcomes";
import { blockCells } from "../../src/cli/report-sheets";
import { PlannedRow, RowOutcome } from "../../src/screening";
import { sandboxAnalyses } from "../support/sandbox-analysis";
import { buyBody } from "../support/relay";

/*
 * The reports of a run on str-screen's own relay are written beside OUT while the run goes on, off
 * the event loop: a row links to its report only once the file is there, and one that could not be
 * written says so in its Report cell rather than linking to nothing.
 */
describe("Outcomes keeps each row's report beside OUT", () => {
  const sandbox = sandboxAnalyses("sk_test_outcomes");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-outcomes-"));
  afterAll(async () => {
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const row = (sheetRow: number) => ({ kind: "request", sheetRow, item: sheetRow, op: "buy" }) as unknown as PlannedRow;
  const outcome = {
    status: "created",
    cells: [{ value: "" }, { value: "" }, { value: "http://127.0.0.1:1/reports/x" }],
  } as unknown as RowOutcome;
  const reportField = [{ unit: "url" }] as never;
  async function answer(n: number): Promise<RelayAnswer> {
    const data = await sandbox.analysis("buy", buyBody(n));
    return {
      success: true,
      data,
      relay: { cached: false, costUSD: 0.2, sandbox: true, fetchedAt: new Date().toISOString() },
    };
  }

  test("a written report is linked from its row, once the file is there", async () => {
    const reports = new LocalReports(path.join(dir, "kept.xlsx"));
    reports.prepare();
    const outcomes = new Outcomes(0, reports);
    const a = await answer(1);
    outcomes.record(row(1), outcome, a);
    expect(await outcomes.reportsKept()).toEqual([]);
    const kept = outcomes.get(row(1));
    const file = `kept-reports/${(a.data as { _id: string })._id}.html`;
    expect(kept?.reportFile).toBe(file);
    expect(fs.readFileSync(path.join(dir, file), "utf8")).toContain("SIMULATED");
    expect(blockCells(kept!, reportField)[2]).toEqual({ value: file, link: file });
    outcomes.close();
  });

  test("a report that cannot be written is named, and its row's cell says it was not kept instead of linking", async () => {
    const reports = new LocalReports(path.join(dir, "lost.xlsx"));
    reports.prepare();
    // The folder goes after the check made before sending: every write into it fails.
    fs.rmSync(path.join(dir, "lost-reports"), { recursive: true });
    const outcomes = new Outcomes(0, reports);
    outcomes.record(row(2), outcome, await answer(2));
    const unkept = await outcomes.reportsKept();
    expect(unkept).toEqual([expect.stringMatching(/^lost-reports\/\w+\.html \(ENOENT\)$/)]);
    const cell = blockCells(outcomes.get(row(2))!, reportField)[2];
    expect(cell).toEqual({ value: `report not kept: ${unkept[0]}` });
    outcomes.close();
  });

  test("a row is final, so the workbook may write it during the run, only once its report is written", async () => {
    const reports = new LocalReports(path.join(dir, "final.xlsx"));
    reports.prepare();
    const outcomes = new Outcomes(0, reports);
    const finals: boolean[] = [];
    outcomes.onFinal = () => finals.push(outcomes.isFinal(row(3)));
    expect(outcomes.isFinal(row(3))).toBe(false);
    outcomes.record(row(3), outcome, await answer(3));
    expect(outcomes.isFinal(row(3))).toBe(false);
    await outcomes.reportsKept();
    expect(finals).toEqual([true]);
    expect(outcomes.get(row(3))?.reportFile).toMatch(/^final-reports\//);

    // Without a report to keep, at once; an enhancement with no figures waits for the run's end.
    const plain = new Outcomes(0);
    plain.onFinal = () => finals.push(plain.isFinal(row(4)));
    plain.record(row(4), outcome, await answer(4));
    plain.record(row(5), { ...outcome, notEnhanced: "Not enhanced, nothing billed" }, undefined);
    expect([plain.isFinal(row(4)), plain.isFinal(row(5))]).toEqual([true, false]);
    outcomes.close();
    plain.close();
  });
});
