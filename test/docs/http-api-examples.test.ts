import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

/**
 * Every curl example in docs/http-api.md, run top to bottom with curl (and jq, as the docs pipe
 * into it) against a real relay on its sandbox, and compared with the answer the page shows beside
 * it: the HTTP status, the error codes and the field (and header) names. Values are not compared:
 * ids, times and amounts differ from run to run, as the page says. An id the page shows in one
 * example's answer and uses in a later command (the enhance, the stored analysis) is the id this
 * run's example made. The "$ curl …" transcripts under "Billing and unknown outcomes" are
 * abbreviated (their bodies are elided) and are runs with faults injected: they are not run here.
 */
const DOC = path.resolve(__dirname, "../../docs/http-api.md");

interface Block {
  lang: string;
  text: string;
  line: number;
}

function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++) body.push(lines[i] as string);
    blocks.push({ lang: open[1] ?? "", text: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

interface Example {
  command: string;
  /** What the page shows the command answers. */
  expected: string;
  line: number;
}

/** The commands of a shell block (a command runs on over lines ending in "\"), each with the "# …" answer under it. */
function commandsOf(block: Block, next: Block | undefined): Example[] {
  const examples: Example[] = [];
  const lines = block.text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] as string;
    if (first.trim() === "" || first.startsWith("#")) continue;
    const command = [first];
    while (command[command.length - 1]?.endsWith("\\") && i + 1 < lines.length) command.push(lines[++i] as string);
    const comments: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1] as string).startsWith("# "))
      comments.push((lines[++i] as string).slice(2));
    examples.push({ command: command.join("\n"), expected: comments.join("\n"), line: block.line + 1 });
  }
  if (examples.length === 1 && examples[0]?.expected === "" && next && next.lang !== "sh")
    (examples[0] as Example).expected = next.text;
  return examples;
}

function curlExamples(markdown: string): Example[] {
  const blocks = fencedBlocks(markdown);
  return blocks.flatMap((block, i) =>
    block.lang === "sh" && /(^|\|\s*)curl /m.test(block.text) ? commandsOf(block, blocks[i + 1]) : [],
  );
}

/** What is compared: the statuses, the error codes, and the names of fields, headers and metrics. */
function shapeOf(output: string) {
  const statuses = [...output.matchAll(/^HTTP(?:\/[\d.]+)? (\d{3})/gm)].map((m) => Number(m[1]));
  const codes = new Set([...output.matchAll(/\b(STR_[A-Z_]+)\b/g)].map((m) => m[1]));
  const fields = new Set([...output.matchAll(/"([A-Za-z_][\w]*)"\s*:/g)].map((m) => m[1]));
  const headers = new Set([...output.matchAll(/^([a-z][a-z-]+): /gim)].map((m) => (m[1] as string).toLowerCase()));
  const metrics = new Set([...output.matchAll(/^(str_relay_\w+)/gm)].map((m) => m[1]));
  return { statuses: [...new Set(statuses)].sort(), codes, fields, headers, metrics };
}

const HEX_ID = /"(?:id|_id)"\s*:\s*"([0-9a-f]{24})"/g;

/**
 * Runs one example in a bash of its own, without the user's startup files: bash given no SHLVL and
 * stdio that are sockets (as Node's pipes are) takes itself to be run by a remote shell and reads
 * ~/.bashrc, which is no part of the example (and can take longer than the example itself).
 */
function run(command: string, env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      "bash",
      ["--norc", "-o", "pipefail", "-c", command],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, cwd, timeout: 30_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
}

describe("every curl example in docs/http-api.md does what the page shows", () => {
  let t: TestRelay;
  let relayUrl: string;
  let cwd: string;
  const markdown = fs.readFileSync(DOC, "utf8");
  const examples = curlExamples(markdown);
  /** Ids the page shows → the ids this run made in their place. */
  const ids = new Map<string, string>();

  beforeAll(async () => {
    t = await startRelay({ RELAY_TOKENS: `alice:${TEST_TOKEN}`, RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice:20" });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    relayUrl = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "http-api-examples-"));
    // The batch examples read `batch.json`, the file the page shows.
    const batch = fencedBlocks(markdown).find((b) => b.lang === "json" && b.text.includes('"strategy": "cohost"'));
    if (!batch) throw new Error("http-api.md no longer shows batch.json");
    fs.writeFileSync(path.join(cwd, "batch.json"), batch.text);
  });
  afterAll(() => t?.close());

  test("the page has its curl examples, each with the answer it shows", () => {
    expect(examples.length).toBeGreaterThanOrEqual(15);
    expect(examples.filter((e) => e.expected.trim() === "")).toEqual([]);
  });

  test.each(curlExamples(fs.readFileSync(DOC, "utf8")).map((e) => [e.line, e.command.split("\n")[0], e] as const))(
    "line %i: %s",
    async (_line, _first, example) => {
      let command = example.command;
      for (const [shown, made] of ids) command = command.replaceAll(shown, made);
      const output = await run(command, { RELAY: relayUrl, TOKEN: TEST_TOKEN }, cwd);
      const shown = [...example.expected.matchAll(HEX_ID)].map((m) => m[1] as string);
      const got = [...output.matchAll(HEX_ID)].map((m) => m[1] as string);
      shown.forEach((id, i) => got[i] && !ids.has(id) && ids.set(id, got[i] as string));

      const want = shapeOf(example.expected);
      const have = shapeOf(output);
      expect({ statuses: have.statuses, codes: [...have.codes].sort() }).toEqual({
        statuses: want.statuses,
        codes: [...want.codes].sort(),
      });
      expect([...have.fields].sort()).toEqual([...want.fields].sort());
      expect([...have.headers].filter((h) => want.headers.has(h) || h.startsWith("access-control")).sort()).toEqual(
        [...want.headers].sort(),
      );
      expect([...want.metrics].filter((m) => !have.metrics.has(m))).toEqual([]);
    },
  );
});
