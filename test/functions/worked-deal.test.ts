import fs from "node:fs";
import path from "node:path";
import { installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

/**
 * docs/functions.md's worked deal, BUY → MAXBID → PROJECTION → ENHANCE, run as it is written: its
 * formulas are read from the page and called, and every figure the page shows (the card's rows, the
 * maximum bids, the projection worked by hand, the figures after ENHANCE) must be what they spill.
 */
const DOC = fs.readFileSync(path.resolve(__dirname, "../../docs/functions.md"), "utf8");
const SECTION = DOC.slice(DOC.indexOf("## A worked deal"), DOC.indexOf("\n## ", DOC.indexOf("## A worked deal") + 1));

/** The rows of the markdown table that first follows `marker` in the section, as cells (header and rule left out). */
function tableAfter(marker: string): string[][] {
  const lines = SECTION.slice(SECTION.indexOf(marker)).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const end = lines.findIndex((l, k) => k > start && !l.startsWith("|"));
  return lines.slice(start + 2, end).map((l) =>
    l
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

/** "439,694.55" → 439694.55; "7.22 %" → 0.0722 (a % cell holds a fraction). */
const figure = (text: string) =>
  text.endsWith("%") ? Number(text.replace(/[ %,]/g, "")) / 100 : Number(text.replace(/,/g, ""));
/** A cell's value as the page shows it: money and ratios to the cent, percents to a hundredth of one. */
const shown = (value: unknown, text: string) =>
  text.endsWith("%") ? Math.round((value as number) * 10000) / 10000 : Math.round((value as number) * 100) / 100;

/** `=STR.MAXBID(B45, "cash-on-cash", "8%")` → the call, with cell references read from `cells`. */
function run(formula: string, cells: Record<string, unknown>): Promise<unknown[][]> {
  const m = /^`=STR\.([A-Z]+)\((.*)\)`$/.exec(formula);
  if (!m) throw new Error(`not a formula: ${formula}`);
  const args = (m[2] as string)
    .split(/,\s*(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((a) => (a.startsWith('"') ? a.slice(1, -1) : /^[A-Z]+\d+$/.test(a) ? cells[a] : Number(a)));
  const fn = (STR as unknown as Record<string, (...a: unknown[]) => Promise<unknown[][]>>)[
    (m[1] as string).toLowerCase()
  ];
  if (!fn) throw new Error(`no function ${m[1]}`);
  return fn(...args);
}

let t: TestRelay;
beforeAll(async () => {
  t = await startRelay();
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  await addinConnection().update({
    relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
    token: TEST_TOKEN,
  });
});
afterAll(() => t.close());

test("docs/functions.md's worked deal spills what the page says", async () => {
  const buy = /In A1, (`=STR\.BUY\(.*?\)`) spills the card, A1:F(\d+)/.exec(SECTION);
  if (!buy) throw new Error("the worked deal has no STR.BUY in A1");
  const card = await run(buy[1] as string, {});
  expect(card).toHaveLength(Number(buy[2]));
  // The card's rows the page names: label and value in the row it says.
  const cells: Record<string, unknown> = {};
  for (const [ref, label, value] of tableAfter("The rows used below")) {
    const row = card[Number((ref as string).slice(1)) - 1] as unknown[];
    expect({ ref, label: row[0] }).toEqual({ ref, label });
    if (value !== "(the id)")
      expect({ ref, value: shown(row[1], value as string) }).toEqual({ ref, value: figure(value as string) });
    cells[ref as string] = row[1];
  }
  // The maximum bids.
  for (const [ref, formula, value] of tableAfter("**2. What is the most to offer?**")) {
    const result = await run(formula as string, cells);
    expect({ ref, value: result[0]?.[0] }).toEqual({ ref, value: figure(value as string) });
    cells[ref as string] = result[0]?.[0];
  }
  const atBid = await STR.whatif(cells.B45, cells.D1, null as never, null as never, null as never, null as never, [
    ["Cash-on-cash return"],
  ]);
  expect(atBid[0]?.[0]).toBe(0.08);

  // The projection: its summary rows and its years, as worked by hand.
  const projection = await run(/In F1, (`=STR\.PROJECTION\(.*?\)`)/.exec(SECTION)?.[1] as string, cells);
  expect(projection).toHaveLength(Number(/spills F1:N(\d+)/.exec(SECTION)?.[1]));
  for (const [row, label, value] of tableAfter("the summary in F1:G19")) {
    const got = projection[Number(row) - 1] as unknown[];
    expect({ row, label: got[0], value: shown(got[1], value as string) }).toEqual({
      row,
      label,
      value: figure(value as string),
    });
  }
  const table = tableAfter("the years in F22:N27");
  expect(projection[20]?.[0]).toBe("Year by year");
  expect(projection.slice(22, 22 + table.length).map((r) => r.map(Number))).toEqual(table.map((r) => r.map(figure)));
  expect(projection[23 + table.length]?.[0]).toBe("Year one by month");

  // ENHANCE, and what reads its id.
  const enhanced = await run(/In P1, (`=STR\.ENHANCE\(.*?\)`)/.exec(SECTION)?.[1] as string, cells);
  const named = [...SECTION.matchAll(/([\d,.]+(?: %)?) (?:a month )?\((Q\d+)\)/g)].map((m) => [m[2], m[1]]);
  expect(named.map(([ref]) => ref)).toEqual(["Q6", "Q26", "Q7", "Q8"]);
  for (const [ref, value] of named) {
    expect({ ref, value: shown(enhanced[Number((ref as string).slice(1)) - 1]?.[1], value as string) }).toEqual({
      ref,
      value: figure(value as string),
    });
  }
  cells.Q45 = enhanced[44]?.[1];
  const [bid, projected] = tableAfter("Formulas that read Q45");
  expect((await run(bid?.[1] as string, cells))[0]?.[0]).toBe(figure(bid?.[2] as string));
  const irr = /the IRR, in X21, is ([\d.]+ %)/.exec(projected?.[2] as string)?.[1] as string;
  expect(shown((await run(projected?.[1] as string, cells))[18]?.[1], irr)).toBe(figure(irr));
});
