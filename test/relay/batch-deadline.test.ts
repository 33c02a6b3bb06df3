import { Gateway } from "../../src/relay/gateway";
import { streamBatch } from "../../src/relay/batch/stream-batch";
import { ParsedItem } from "../../src/relay/batch/batch-request";
import fs from "node:fs";
import path from "node:path";
import { closingDelayMs, pendingLine } from "../../src/relay/batch/pending";

/**
 * The deadline is the longest a batch answer may take to reach its caller, pending lines included:
 * the relay ends the answer early enough to deliver them (a tenth of the deadline, at most 2 s).
 */
const never = { analyze: () => new Promise(() => undefined) } as unknown as Gateway;
const items = (n: number): ParsedItem[] =>
  Array.from({ length: n }, (_, index) => ({ index, ok: true, op: "buy", params: {}, refresh: false }));

describe("when a batch answer ends", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test("a tenth before the deadline, at most 2 s before it", () => {
    expect(closingDelayMs(3000)).toBe(2700);
    expect(closingDelayMs(45_000)).toBe(43_000);
    expect(closingDelayMs(1000)).toBe(900);
  });

  test("items still running then get their pending lines and the answer ends", () => {
    const out = streamBatch(never, items(3), new AbortController().signal, { deadlineMs: 3000 });
    const lines: string[] = [];
    out.on("data", (chunk: Buffer) => lines.push(...String(chunk).split("\n").filter(Boolean)));
    jest.advanceTimersByTime(2699);
    expect(out.writableEnded).toBe(false);
    jest.advanceTimersByTime(1);
    expect(out.writableEnded).toBe(true);
    out.read();
    expect(lines.map((l) => (JSON.parse(l) as { status: number }).status)).toEqual([202, 202, 202]);
  });
});

test("http-api.md shows a pending line as the relay writes it: the same fields, the same message", () => {
  const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/http-api.md"), "utf8");
  const shown = /```json\n(\{\n {2}"index": \d+,\n {2}"status": 202,[\s\S]*?)\n```/.exec(doc)?.[1];
  expect(shown).toBeDefined();
  const documented = JSON.parse(shown as string) as { body: Record<string, unknown> };
  const written = pendingLine(812, undefined, "3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c3a");
  expect(Object.keys(documented).sort()).toEqual(Object.keys(written).sort());
  expect(Object.keys(documented.body).sort()).toEqual(Object.keys(written.body).sort());
  expect(documented.body.message).toBe(written.body.message);
  expect(Object.keys(pendingLine(1, 0, undefined).body)).toContain("freshSince");
});
