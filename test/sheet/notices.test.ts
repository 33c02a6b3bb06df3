import { RelayAnswer } from "../../src/contract";
import {
  CARD_LABELS,
  SANDBOX_NOTICE,
  analysisCard,
  analysisEntity,
  analysisOf,
  comparablesTable,
  fieldsRow,
  parseFieldList,
  resultBlockRow,
  warningTexts,
} from "../../src/sheet";
import { arbAnswer, buyAnswer } from "./fixtures";

/**
 * A row copied out of its table, a card pasted elsewhere, a data type moved to another workbook:
 * each must still say that its figures are simulated, in its own cells.
 */
const fields = (() => {
  const parsed = parseFieldList("revenue.p50, yearOneCashFlowUSD");
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.fields;
})();

/** A sandbox answer without any warning of the service's: only the notice can make its cells say so. */
const quietSandbox: RelayAnswer = { ...buyAnswer, warnings: [] };

describe("a simulated answer says so in its own cells, in every layout", () => {
  const layouts: [string, (answer: RelayAnswer) => unknown[]][] = [
    ["a screening row's warnings cell", (a) => [fieldsRow(a, fields).at(-1)?.value]],
    ["a result block row's warnings cell", (a) => [resultBlockRow({ answer: a }, fields, "created").at(-1)?.value]],
    [
      "the card's ⚠ rows",
      (a) =>
        analysisCard(a)
          .filter((row) => row[0]?.value === CARD_LABELS.warning)
          .map((row) => row[1]?.value),
    ],
    [
      "the entity's Warnings",
      (a) => {
        const warnings = analysisEntity(a, { formattedNumbers: "double" })?.properties.Warnings;
        return warnings?.type === "Array"
          ? warnings.elements.map((row) => row[0]?.basicValue)
          : [warnings?.type === "String" ? warnings.basicValue : undefined];
      },
    ],
    [
      "each comparables row",
      (a) => {
        const table = comparablesTable(analysisOf(a), undefined, warningTexts(a));
        return table.ok ? table.grid.slice(1).map((row) => row.at(-1)?.value) : [];
      },
    ],
  ];

  test.each(layouts)("%s: sandbox → the notice; live → not", (_name, cellsOf) => {
    const sandbox = cellsOf(quietSandbox).map(String);
    expect(sandbox.length).toBeGreaterThan(0);
    for (const cell of sandbox) expect(cell).toContain(SANDBOX_NOTICE);
    const live = cellsOf({ ...quietSandbox, relay: { ...quietSandbox.relay, sandbox: false } }).map(String);
    expect(live.some((cell) => cell.includes(SANDBOX_NOTICE))).toBe(false);
  });

  test("the notice comes before the service's warnings, so a clipped cell keeps it", () => {
    expect(warningTexts(buyAnswer)).toEqual([
      SANDBOX_NOTICE,
      "AI comparables skipped: fewer than 8 usable listing photos",
      "AI expense estimates timed out; category defaults used",
    ]);
    expect(fieldsRow(buyAnswer, fields).at(-1)?.value).toMatch(/^⚠ SANDBOX: simulated data \| AI comparables skipped/);
    expect(warningTexts(arbAnswer)).toEqual([]);
  });
});

describe("an answer the relay marks stale says its age and the price of a refresh, in its own cells", () => {
  const stale: RelayAnswer = {
    ...arbAnswer,
    relay: { ...arbAnswer.relay, stale: { ageDays: 45, refreshCostUSD: 0.2 } },
  };
  const notice = "STALE: fetched 45 days ago; a refresh costs up to 0.20 USD";

  test("the warnings list leads with it, after the sandbox notice when both apply", () => {
    expect(warningTexts(stale)).toEqual([notice]);
    const both = { ...quietSandbox, relay: { ...quietSandbox.relay, stale: { ageDays: 1, refreshCostUSD: 0.4 } } };
    expect(warningTexts(both)).toEqual([SANDBOX_NOTICE, "STALE: fetched 1 day ago; a refresh costs up to 0.40 USD"]);
  });

  test("a screening row, the pane's result row and the card show it", () => {
    expect(fieldsRow(stale, fields).at(-1)?.value).toBe(`⚠ ${notice}`);
    expect(resultBlockRow({ answer: stale }, fields, "cached").at(-1)?.value).toBe(`⚠ ${notice}`);
    expect(
      analysisCard(stale)
        .filter((row) => row[0]?.value === CARD_LABELS.warning)
        .map((row) => row[1]?.value),
    ).toEqual([notice]);
  });

  test("an answer not marked (fresh, or from a relay that does not mark) shows nothing", () => {
    expect(fieldsRow(arbAnswer, fields).at(-1)?.value).toBe("");
  });
});
