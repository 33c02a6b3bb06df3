import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSandbox } from "../../src/sandbox/sandbox-server";
import { AnalysisLog } from "../../src/sandbox/analysis-log";
import { BODIES, call, makeSandbox } from "./helpers";

/* A sandbox started again remembers the analyses the last one made, for its own new key. */
describe("the sandbox's analysis log", () => {
  const body = BODIES.buy;

  test("analyses made before a restart can be enhanced with the new key; a log needs exactly one key", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sandbox-log-")), "data", "analyses.jsonl");
    const first = makeSandbox({ apiKeys: ["sk_first_key_123"], analysesFile: file });
    const made = await call(first, "buy", body, "sk_first_key_123");
    expect(made.status).toBe(200);
    const id = made.json.data._id as string;
    await first.app.close();

    const second = makeSandbox({ apiKeys: ["sk_second_key_456"], analysesFile: file });
    const enhanced = await call(
      second,
      "enhance",
      { analysisId: id, addAIExpenseEstimates: true },
      "sk_second_key_456",
    );
    expect(enhanced.status).toBe(200);
    expect(enhanced.json.data._id).toBe(id);
    expect(second.analysis(id)?.fullAddress).toBe(made.json.data.fullAddress);
    await second.app.close();
    expect(() => buildSandbox({ apiKeys: [], analysesFile: file })).toThrow(/exactly one key/);
  });

  test("a line cut mid-write is skipped, and a long log is rewritten one line per analysis", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sandbox-log-")), "analyses.jsonl");
    const line = (id: string) =>
      JSON.stringify({ id, strategy: "buy", request: body, subject: "s", applied: {}, warnings: [], createdAt: 1 });
    fs.writeFileSync(
      file,
      `${Array.from({ length: 300 }, () => line("a1")).join("\n")}\n${line("b2")}\n{"id":"c3","str`,
    );
    const loaded = new AnalysisLog(file).load("sk_key");
    expect(loaded.map((a) => [a.id, a.apiKey])).toEqual([
      ["a1", "sk_key"],
      ["b2", "sk_key"],
    ]);
    expect(fs.readFileSync(file, "utf8").trim().split("\n")).toHaveLength(2);
  });
});
