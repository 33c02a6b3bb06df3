import fs from "node:fs";
import path from "node:path";
import { BatchItem, BatchRequest, REQUEST_SCHEMAS } from "../../src/contract";

/**
 * docs/n8n/str-relay-job.json, the n8n workflow docs/automation.md tells users to import: an n8n
 * workflow's shape (nodes with name, type, typeVersion, position and parameters; connections
 * between nodes that exist), no credential in it, the jobs contract as automation.md states it,
 * and its Code nodes run on sample data: the job body they build is one the relay's own schema
 * takes, and the results land on the rows they came from.
 */
type Node = {
  id?: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
  credentials?: Record<string, Record<string, unknown>>;
};
type Link = { node: string; type: string; index: number };
type Workflow = { name: string; nodes: Node[]; connections: Record<string, { main: Link[][] }> };

const FILE = path.resolve(__dirname, "..", "..", "docs", "n8n", "str-relay-job.json");
const text = fs.readFileSync(FILE, "utf8");
const workflow = JSON.parse(text) as Workflow;
const node = (name: string) => workflow.nodes.find((n) => n.name === name) as Node;

/** A Code node's JavaScript, run with n8n's `$input` and `$(name)` stood in for. */
function runCode(name: string, input: unknown[], others: Record<string, unknown[]> = {}): { json: unknown }[] {
  const items = input.map((json) => ({ json }));
  const $input = { all: () => items, first: () => items[0] };
  const $ = (other: string) => ({ first: () => ({ json: others[other]?.[0] }) });
  return new Function("$input", "$", String(node(name).parameters.jsCode))($input, $) as { json: unknown }[];
}

describe("the n8n workflow's shape", () => {
  test("nodes have a unique name, an n8n type, a numeric typeVersion, a position and parameters", () => {
    expect(workflow.name).toEqual(expect.any(String));
    const names = workflow.nodes.map((n) => n.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of workflow.nodes) {
      expect(n.type).toMatch(/^n8n-nodes-base\.[A-Za-z]+$/);
      expect(typeof n.typeVersion).toBe("number");
      expect(n.position).toEqual([expect.any(Number), expect.any(Number)]);
      expect(typeof n.parameters).toBe("object");
    }
  });

  test("connections join nodes that exist, and every node is reached from the trigger", () => {
    const names = new Set(workflow.nodes.map((n) => n.name));
    const reached = new Set<string>(["Start"]);
    const queue = ["Start"];
    for (const [from, { main }] of Object.entries(workflow.connections)) {
      expect(names.has(from)).toBe(true);
      for (const link of main.flat()) {
        expect(names.has(link.node)).toBe(true);
        expect(link).toMatchObject({ type: "main", index: 0 });
      }
    }
    while (queue.length > 0) {
      for (const link of workflow.connections[queue.shift() as string]?.main.flat() ?? []) {
        if (!reached.has(link.node)) queue.push(link.node);
        reached.add(link.node);
      }
    }
    expect([...names].filter((n) => !reached.has(n))).toEqual([]);
    expect(node("Start").type).toBe("n8n-nodes-base.manualTrigger");
  });

  test("no credential is inlined: the HTTP nodes name a Header Auth credential the user picks after import", () => {
    expect(workflow.nodes.filter((n) => n.credentials !== undefined)).toEqual([]);
    expect(text).not.toMatch(/Bearer|rt_[A-Za-z0-9_-]{8,}|"Authorization"|api[_-]?key/i);
    for (const n of workflow.nodes.filter((x) => x.type === "n8n-nodes-base.httpRequest"))
      expect(n.parameters).toMatchObject({
        authentication: "genericCredentialType",
        genericAuthType: "httpHeaderAuth",
      });
  });
});

describe("the jobs contract, as the workflow uses it", () => {
  test("POST /v1/jobs starts it; GET /v1/jobs/{id} is polled after Retry-After until a 200", () => {
    expect(node("Start job").parameters).toMatchObject({ method: "POST", url: expect.stringMatching(/\/v1\/jobs$/) });
    expect(node("Get job").parameters).toMatchObject({
      method: "GET",
      url: expect.stringMatching(/\/v1\/jobs\/\{\{ \$\('Start job'\)\.first\(\)\.json\.body\.jobId \}\}$/),
    });
    expect(String(node("Wait").parameters.amount)).toMatch(/retry-after/);
    expect(JSON.stringify(node("Done?").parameters)).toMatch(/statusCode.*200/);
    // Done? answers true to the results, false back to Wait.
    expect(workflow.connections["Done?"]?.main.map((branch) => branch.map((l) => l.node))).toEqual([
      ["Results to rows"],
      ["Wait"],
    ]);
  });

  test("the job body built from the sample rows is one the relay's batch schema takes", () => {
    const rows = runCode("Sample rows", []).map((i) => i.json);
    const [out] = runCode("Rows to job", rows) as { json: { keys: unknown[]; job: unknown } }[];
    const job = BatchRequest.parse(out?.json.job);
    for (const item of job.items) {
      const { strategy, params } = BatchItem.parse(item);
      expect(REQUEST_SCHEMAS[strategy].safeParse(params).error).toBeUndefined();
    }
    expect(out?.json.keys).toEqual([1, 2]);
  });

  test("each result lands on the row of its item, figures or error", () => {
    const results = [
      { success: true, data: { _id: "a1", revenue: { p50: 51000 }, yearOneCashFlowUSD: 9000 } },
      { success: false, error: { code: "STR_VALIDATION", message: "bedrooms: required" } },
    ];
    const rows = runCode("Results to rows", [{ statusCode: 200, body: { jobId: "j", status: "done", results } }], {
      "Rows to job": [{ keys: [7, 8] }],
    }).map((i) => i.json);
    expect(rows).toEqual([
      { Id: 7, Revenue: 51000, CashFlow: 9000, CashOnCash: null, AnalysisId: "a1", Status: "ok" },
      {
        Id: 8,
        Revenue: null,
        CashFlow: null,
        CashOnCash: null,
        AnalysisId: null,
        Status: "STR_VALIDATION: bedrooms: required",
      },
    ]);
  });
});
