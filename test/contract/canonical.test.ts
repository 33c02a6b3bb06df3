import fc from "fast-check";
import { AnyRequest, Operation, canonicalRequest, canonicalText, requestFieldNames } from "../../src/contract";

/**
 * The canonical request is the cache key: requests the service would answer alike read alike,
 * requests it would answer differently never do.
 */

const BUY: AnyRequest = {
  fullAddress: "12 Main St, Austin, TX",
  purchasePriceUSD: 450_000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
};

const key = (request: Record<string, unknown>, op: "buy" | "arb" | "owned" | "cohost" | "enhance" = "buy") =>
  canonicalRequest(op, request as AnyRequest);

describe("requests the service answers alike read alike", () => {
  test("key order does not matter", () => {
    const reordered = {
      accomodates: 8,
      bathrooms: 2,
      bedrooms: 3,
      purchasePriceUSD: 450_000,
      fullAddress: "12 Main St, Austin, TX",
    };
    expect(key(reordered)).toBe(key(BUY));
  });

  test("the form is the operation and the fields sorted by name", () => {
    expect(key(BUY)).toBe(
      'buy:{"accomodates":8,"bathrooms":2,"bedrooms":3,"fullAddress":"12 main st, austin, tx","purchasePriceUSD":450000}',
    );
  });

  test("the form is exactly the JSON of the kept fields sorted by name, text escapes included", () => {
    // The relay's cache is keyed on these bytes: any change of form would buy stored answers again.
    const request = {
      ...BUY,
      fullAddress: 'Flat "B"\\2, 1 Rue de l\u2019Église',
      city: "Zürich",
      addAIComps: true,
      addAIExpenseEstimates: false,
      lat: 47.3769,
      lng: 8.5417,
      interestRatePercentage: undefined,
    };
    const kept = Object.entries(request)
      .filter(([, v]) => v !== undefined && v !== false)
      .map(([k, v]) => [k, typeof v === "string" ? canonicalText(v) : v] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    expect(key(request)).toBe(`buy:${JSON.stringify(Object.fromEntries(kept))}`);
    expect(key({})).toBe("buy:{}");
    expect(key({ analysisId: "  AbC-1 " }, "enhance")).toBe('enhance:{"analysisId":"AbC-1"}');
  });

  test("the form is the one JSON.stringify of the sorted kept fields gives, for any request (500 requests)", () => {
    // Pins the form for any names and values: the relay's cache is keyed on these bytes.
    const reference = (op: Operation, request: Record<string, unknown>) => {
      const kept = Object.keys(request)
        .sort()
        .flatMap((k): [string, string | number | true][] => {
          const v = request[k];
          if (typeof v === "string") return [[k, k === "analysisId" ? v.trim() : canonicalText(v)]];
          if (typeof v === "number") {
            const n = k === "lat" || k === "lng" ? Math.round(v * 1e6) / 1e6 : v;
            return [[k, Object.is(n, -0) ? 0 : n]];
          }
          return v === true ? [[k, true]] : [];
        });
      return `${op}:{${kept.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
    };
    const ops: Operation[] = ["buy", "arb", "owned", "cohost", "enhance"];
    // Names of the operations, and some no schema has (the key must still be right for them).
    const names = [
      ...new Set(ops.flatMap((op) => requestFieldNames(op))),
      "zeta",
      "10",
      "9",
      'q"uote',
      "ünïcode",
      "a b",
    ];
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.double(),
      fc.integer(),
      fc.constantFrom(-0, 1e21, 0.1, NaN, Infinity),
      fc.boolean(),
      fc.constant(undefined),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...ops),
        fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 12 }),
        (op, request) => {
          expect(canonicalRequest(op, request as AnyRequest)).toBe(reference(op, request));
        },
      ),
      { numRuns: 500 },
    );
  });

  test.each([
    ["upper case", "12 MAIN ST, AUSTIN, TX"],
    ["repeated and odd whitespace", "12  Main\tSt,   Austin,\nTX"],
    ["no space after commas", "12 Main St,Austin,TX"],
    ["space before commas", "12 Main St , Austin , TX"],
    ["leading and trailing space", "  12 Main St, Austin, TX  "],
    ["a trailing full stop or comma", "12 Main St, Austin, TX.,"],
    ["full-width characters", "１２ Main St, Austin, TX"],
  ])("the address with %s reads the same", (_name, address) => {
    expect(key({ ...BUY, fullAddress: address })).toBe(key(BUY));
  });

  test("every text field is compared the same way, not only the address", () => {
    expect(key({ ...BUY, city: " AUSTIN ", country: "us" })).toBe(key({ ...BUY, city: "Austin", country: "US" }));
  });

  test("an AI flag set to false is the same as no flag", () => {
    expect(key({ ...BUY, addAIComps: false })).toBe(key(BUY));
    expect(key({ ...BUY, addAIComps: false, addAIExpenseEstimates: false })).toBe(key(BUY));
  });

  test("undefined fields are the same as absent ones", () => {
    expect(key({ ...BUY, interestRatePercentage: undefined, lat: undefined })).toBe(key(BUY));
  });

  test("coordinates count to 6 decimals (about 10 cm)", () => {
    const at = (lat: number, lng: number) => key({ ...BUY, fullAddress: undefined, lat, lng });
    expect(at(30.2672001, -97.7431004)).toBe(at(30.2672, -97.7431));
    expect(at(30.26720049, -97.7431)).toBe(at(30.2672, -97.7431));
    expect(at(30.2672, -97.7431)).toContain('"lat":30.2672,"lng":-97.7431');
  });

  test("-0 reads as 0, including a coordinate that rounds to -0", () => {
    const at = (lat: number, lng: number) => key({ ...BUY, fullAddress: undefined, lat, lng });
    expect(at(-0, -0)).toBe(at(0, 0));
    expect(at(-0.0000001, 0)).toBe(at(0, 0));
    expect(key({ ...BUY, bedrooms: -0 })).toBe(key({ ...BUY, bedrooms: 0 }));
  });

  test("enhance: surrounding space of the id does not matter", () => {
    expect(key({ analysisId: " abc123 ", addAIComps: true }, "enhance")).toBe(
      key({ analysisId: "abc123", addAIComps: true }, "enhance"),
    );
  });
});

describe("requests the service answers differently never read alike", () => {
  test("the analysis id keeps its case", () => {
    expect(key({ analysisId: "AbC123", addAIComps: true }, "enhance")).not.toBe(
      key({ analysisId: "abc123", addAIComps: true }, "enhance"),
    );
    expect(key({ analysisId: "AbC123", addAIComps: true }, "enhance")).toContain('"analysisId":"AbC123"');
  });

  test("different operations differ, even with the same fields", () => {
    const cohost = { fullAddress: "x", bedrooms: 2, bathrooms: 1, accomodates: 4 };
    const keys = (["buy", "arb", "owned", "cohost"] as const).map((op) => key(cohost, op));
    expect(new Set(keys).size).toBe(4);
  });

  test.each([
    ["price", { purchasePriceUSD: 450_001 }],
    ["bedrooms", { bedrooms: 4 }],
    ["bathrooms", { bathrooms: 2.5 }],
    ["guests", { accomodates: 7 }],
    ["address", { fullAddress: "14 Main St, Austin, TX" }],
    ["an AI flag set", { addAIComps: true }],
    ["the other AI flag set", { addAIExpenseEstimates: true }],
    ["an optional field added", { interestRatePercentage: 6 }],
    ["a unit", { unit: "2" }],
  ])("a different %s differs", (_name, patch) => {
    expect(key({ ...BUY, ...patch })).not.toBe(key(BUY));
  });

  test("the two AI flags are not interchangeable", () => {
    expect(key({ ...BUY, addAIComps: true })).not.toBe(key({ ...BUY, addAIExpenseEstimates: true }));
  });

  test("coordinates differing in the 6th decimal differ", () => {
    const at = (lat: number) => key({ ...BUY, fullAddress: undefined, lat, lng: -97.7431 });
    expect(at(30.267201)).not.toBe(at(30.2672));
  });

  test("a number is not its text", () => {
    expect(key({ ...BUY, postalCode: "78701" })).not.toBe(key({ ...BUY, squareFeet: 78701 }));
  });
});

describe("canonicalText", () => {
  test.each([
    ["  Austin ,TX  ", "austin, tx"],
    ["New\u00a0York,NY.", "new york, ny"],
    ["Straße", "straße"],
  ])("%j reads as %j", (input, output) => {
    expect(canonicalText(input)).toBe(output);
  });
});
