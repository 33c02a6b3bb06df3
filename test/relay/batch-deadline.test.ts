import { Gateway } from "../../src/relay/gateway";
import { ParsedItem, streamBatch } from "../../src/relay/batch";
import { closingDelayMs } from "../../src/relay/pending";

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
