import fc from "fast-check";
import {
  FieldIssue,
  Operation,
  RelayErrorBody,
  RelayErrorCode,
  STRATEGIES,
  Strategy,
  requestFieldNames,
} from "../../src/contract";
import { ERRORS } from "../../src/relay/relay-errors";

/**
 * Shared pieces of the property-based fuzz tests: generators of request bodies (valid, nearly
 * valid, arbitrary), of the values Excel hands a custom function, the wire error shape as an
 * oracle, and a tally that reports how many cases each property tried.
 *
 * FUZZ_SCALE multiplies every run count (e.g. FUZZ_SCALE=10 for a long soak); FUZZ_SEED replays a
 * failing run (fast-check prints the seed and path of a counterexample).
 */
export const SCALE = Math.max(0.01, Number(process.env.FUZZ_SCALE ?? "1") || 1);
export const runs = (n: number): number => Math.max(1, Math.round(n * SCALE));
export const fcOptions = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
});

/**
 * How long `run` takes, ms: the fastest of up to `tries` runs, stopping at one under `enoughMs`. A
 * busy machine holds a run up now and then, never every one; slow work (a regular expression
 * backtracking) is slow every time.
 */
export function fastestOf(tries: number, run: () => void, enoughMs: number): number {
  let fastest = Infinity;
  for (let i = 0; i < tries && fastest >= enoughMs; i++) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

// ---------------------------------------------------------------------------------------------
// Tally: what each property tried, printed as one line per property.

export class Tally {
  readonly #lines: string[] = [];
  constructor(readonly title: string) {}

  /** Counts outcomes by name for one property; `line()` prints them. */
  start(name: string): Counter {
    return new Counter(name, (text) => this.#lines.push(text));
  }

  print(): void {
    if (this.#lines.length > 0) console.log(`${this.title}\n${this.#lines.map((l) => `  ${l}`).join("\n")}`);
  }
}

export class Counter {
  readonly #counts = new Map<string, number>();
  readonly #started = performance.now();
  tried = 0;
  constructor(
    readonly name: string,
    private readonly sink: (text: string) => void,
  ) {}

  add(what: string, n = 1): void {
    this.#counts.set(what, (this.#counts.get(what) ?? 0) + n);
  }

  get(what: string): number {
    return this.#counts.get(what) ?? 0;
  }

  done(unit: string): void {
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1);
    const detail = [...this.#counts.entries()].map(([k, v]) => `${k} ${v}`).join(", ");
    this.sink(`${this.name}: ${this.tried} ${unit} tried in ${seconds} s${detail ? ` (${detail})` : ""}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The relay's error shape, checked strictly: the documented keys, a known code whose status is
// the one answered, a message, and fields (when present) that each name a path.

export function errorShapeProblems(status: number, json: unknown): string[] {
  const problems: string[] = [];
  const parsed = RelayErrorBody.safeParse(json);
  if (!parsed.success) return [`not the error shape: ${JSON.stringify(json)?.slice(0, 300)}`];
  const body = json as { success: false; error: Record<string, unknown> };
  const extra = Object.keys(body).filter((k) => k !== "success" && k !== "error");
  if (extra.length > 0) problems.push(`unexpected top-level keys ${extra.join(", ")}`);
  const extraInError = Object.keys(body.error).filter((k) => !["code", "message", "fields", "billing"].includes(k));
  if (extraInError.length > 0) problems.push(`unexpected error keys ${extraInError.join(", ")}`);
  const code = RelayErrorCode.safeParse(parsed.data.error.code);
  if (!code.success) problems.push(`unknown code ${parsed.data.error.code}`);
  else if (ERRORS[code.data].status !== status)
    problems.push(`code ${code.data} is documented as ${ERRORS[code.data].status}, answered ${status}`);
  if (parsed.data.error.message.trim() === "") problems.push("empty message");
  for (const f of parsed.data.error.fields ?? []) {
    if (f.path.trim() === "") problems.push(`a field issue with an empty path: ${JSON.stringify(f)}`);
    if (f.message.trim() === "") problems.push(`a field issue with an empty message: ${JSON.stringify(f)}`);
  }
  return problems;
}

/** 200, or a 4xx in the error shape. Anything else (a 5xx above all) is a finding. */
export function statusProblems(status: number, json: unknown, text: string): string[] {
  if (status === 200) return [];
  if (status < 400 || status > 499) return [`status ${status}: ${text.slice(0, 300)}`];
  return errorShapeProblems(status, json);
}

// ---------------------------------------------------------------------------------------------
// JSON text with keys JavaScript object literals cannot hold as plain data ("__proto__"), in the
// order given, duplicates allowed (JSON.parse keeps the last).

export type Entries = [string, unknown][];

export function objectText(entries: Entries): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${valueText(v)}`).join(",")}}`;
}

function valueText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  return JSON.stringify(v) ?? "null";
}

/** A value written as this exact JSON text (a nested object with odd keys). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** What secure-json-parse (fastify's JSON parser) refuses: an own "__proto__" key, or constructor.prototype, anywhere. */
export function isPoisoned(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(isPoisoned);
  if (typeof value !== "object" || value === null) return false;
  if (Object.prototype.hasOwnProperty.call(value, "__proto__")) return true;
  const ctor = (value as Record<string, unknown>).constructor;
  if (
    Object.prototype.hasOwnProperty.call(value, "constructor") &&
    typeof ctor === "object" &&
    ctor !== null &&
    Object.prototype.hasOwnProperty.call(ctor, "prototype")
  )
    return true;
  return Object.values(value).some(isPoisoned);
}

export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

// ---------------------------------------------------------------------------------------------
// Valid request bodies (the contract's ranges), as entries.

export const ADDRESSES = [
  "12 Main St, Austin TX",
  "1 Broadway, Nashville TN",
  "4 Ridge Rd, Asheville NC",
  "3 Lake Rd, Big Bear CA",
  "1 Rue de Rivoli, Paris",
  "7 Ocean Dr, Miami Beach FL",
];

const positive = (max: number) =>
  fc.oneof(
    fc.integer({ min: 1, max }),
    fc.double({ min: Number.MIN_VALUE, max, noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(max, 1, 0.01),
  );
const within = (min: number, max: number) =>
  fc.oneof(
    fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(min, max),
  );

const location: fc.Arbitrary<Entries> = fc.oneof(
  fc.constantFrom(...ADDRESSES).map((a): Entries => [["fullAddress", a]]),
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 80 })
    .filter((s) => s.trim().length > 0)
    .map((a): Entries => [["fullAddress", a]]),
  fc.tuple(within(-90, 90), within(-180, 180)).map(([lat, lng]): Entries => [
    ["lat", lat],
    ["lng", lng],
  ]),
);

const text = (max: number) =>
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength: Math.min(max, 40) })
    .filter((s) => s.trim().length > 0 && s.trim().length <= max);

const addressExtras = {
  state: text(100),
  city: text(100),
  county: text(100),
  postalCode: text(20),
  country: text(100),
  street: text(200),
  streetNumber: text(20),
  unit: text(50),
  squareFeet: positive(1_000_000),
  addAIComps: fc.boolean(),
  addAIExpenseEstimates: fc.boolean(),
};

const counts = {
  bedrooms: fc.integer({ min: 0, max: 50 }),
  bathrooms: fc.integer({ min: 0, max: 100 }).map((n) => n / 2),
  accomodates: fc.integer({ min: 1, max: 100 }),
};

function entriesOf(record: Record<string, unknown>): Entries {
  return Object.entries(record).filter(([, v]) => v !== undefined);
}

const optional = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T) => fc.record(model, { requiredKeys: [] });

export function validBody(op: Operation): fc.Arbitrary<Entries> {
  switch (op) {
    case "buy":
      return fc
        .tuple(
          location,
          fc.record({ purchasePriceUSD: positive(1_000_000_000), ...counts }),
          optional({ monthlyRentUSD: positive(1_000_000), interestRatePercentage: within(0, 15), ...addressExtras }),
        )
        .map(([l, r, o]) => [...l, ...entriesOf(r), ...entriesOf(o)]);
    case "arb":
      return fc
        .tuple(
          location,
          fc.record({ monthlyRentUSD: positive(1_000_000), ...counts }),
          optional({ purchasePriceUSD: positive(1_000_000_000), ...addressExtras }),
        )
        .map(([l, r, o]) => [...l, ...entriesOf(r), ...entriesOf(o)]);
    case "owned":
      return fc
        .tuple(
          location,
          fc.record({
            purchasePriceUSD: positive(1_000_000_000),
            downPaymentPercentage: within(0, 40),
            interestRatePercentage: within(0, 15),
            ...counts,
          }),
          fc
            .tuple(within(0, 30), within(0, 30))
            .map(([a, b]) => ({ mortgageLength: Math.max(a, b), yearsRemainingOnMortgage: Math.min(a, b) })),
          optional({ monthlyRentUSD: positive(1_000_000), ...addressExtras }),
        )
        .map(([l, r, m, o]) => [...l, ...entriesOf(r), ...entriesOf(m), ...entriesOf(o)]);
    case "cohost":
      return fc
        .tuple(location, fc.record(counts), optional({ cohostCommissionPercentage: within(0, 100), ...addressExtras }))
        .map(([l, r, o]) => [...l, ...entriesOf(r), ...entriesOf(o)]);
    case "enhance":
      return fc
        .tuple(
          fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/),
          fc.constantFrom([true, false], [false, true], [true, true], [true, undefined], [undefined, true]),
        )
        .map(([id, [comps, expenses]]) =>
          entriesOf({ analysisId: id, addAIComps: comps, addAIExpenseEstimates: expenses }),
        );
  }
}

/** A few valid bodies that repeat (so the relay's cache answers most of them): for the batch properties. */
export function familiarBody(op: Operation): fc.Arbitrary<Entries> {
  const place = fc.constantFrom(...ADDRESSES.slice(0, 3));
  switch (op) {
    case "buy":
      return fc.tuple(place, fc.constantFrom(300000, 450000), fc.constantFrom(2, 3)).map(([a, p, b]) => [
        ["fullAddress", a],
        ["purchasePriceUSD", p],
        ["bedrooms", b],
        ["bathrooms", 2],
        ["accomodates", 6],
      ]);
    case "arb":
      return fc.tuple(place, fc.constantFrom(1800, 2400)).map(([a, rent]) => [
        ["fullAddress", a],
        ["monthlyRentUSD", rent],
        ["bedrooms", 2],
        ["bathrooms", 1],
        ["accomodates", 4],
      ]);
    case "owned":
      return fc.tuple(place, fc.constantFrom(20, 25)).map(([a, dp]) => [
        ["fullAddress", a],
        ["purchasePriceUSD", 380000],
        ["downPaymentPercentage", dp],
        ["interestRatePercentage", 6],
        ["mortgageLength", 30],
        ["yearsRemainingOnMortgage", 22],
        ["bedrooms", 3],
        ["bathrooms", 2],
        ["accomodates", 6],
      ]);
    case "cohost":
      return fc.tuple(place, fc.constantFrom(20, 25)).map(([a, c]) => [
        ["fullAddress", a],
        ["bedrooms", 2],
        ["bathrooms", 1],
        ["accomodates", 4],
        ["cohostCommissionPercentage", c],
      ]);
    case "enhance":
      // Well formed, but no analysis has it: the service answers "not found" (nothing billed).
      return fc.constantFrom("000000000000000000000000", "no_such_analysis").map((id) => [
        ["analysisId", id],
        ["addAIComps", true],
      ]);
  }
}

// ---------------------------------------------------------------------------------------------
// Values that break a field: wrong types, out of range, NaN-ish text, huge text, odd keys.

const nanText = fc.constantFrom(
  "NaN",
  "Infinity",
  "-Infinity",
  "1e309",
  "-1e309",
  "0x10",
  " 3 ",
  "3abc",
  "",
  " ",
  "null",
  "undefined",
  "true",
  "1,000",
  "$450,000",
  "6.5%",
  "٣",
  "３",
  "1_000",
  "0b11",
  "+5",
  ".5.",
  "--1",
  "\u0000",
  "1e-400",
);
const hugeText = fc.integer({ min: 301, max: 200_000 }).map((n) => "x".repeat(n));
export const oddNumber = fc.oneof(
  fc.constantFrom(
    -1,
    -0.5,
    -1e-9,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    1e21,
    0.1,
    2.25,
    1e-320,
    5e-324,
    51,
    101,
    91,
    -91,
    181,
    1_000_000_001,
    31,
    41,
    15.5,
    100.5,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: oddNumber },
  { weight: 2, arbitrary: nanText },
  { weight: 1, arbitrary: hugeText },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [1, 2], { value: 3 }, "3") },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
);

export const PROTOTYPE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "isPrototypeOf",
];
export const junkKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_KEYS,
    "",
    " ",
    "a.b",
    "items[0]",
    "address",
    "accommodates",
    "guests",
    "lat ",
    "FULLADDRESS",
    "bedrooms\u0000",
    "ü",
    "😀",
    "x".repeat(500),
  ),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);

export interface Mutated {
  text: string;
  what: string;
}

/** A valid body of `op` with one thing broken (or, now and then, a change that keeps it valid: the oracle decides). */
export function mutatedBody(op: Operation, options: { poison?: boolean } = {}): fc.Arbitrary<Mutated> {
  const fields = requestFieldNames(op);
  const mutations: fc.Arbitrary<(e: Entries) => Mutated>[] = [
    fc.tuple(fc.constantFrom(...fields), junkValue).map(([key, value]) => (e: Entries) => ({
      text: objectText([...e.filter(([k]) => k !== key), [key, value]]),
      what: `${key}=junk`,
    })),
    fc.nat().map((i) => (e: Entries) => {
      const key = e[i % e.length]?.[0] ?? "";
      return { text: objectText(e.filter(([k]) => k !== key)), what: `without ${key}` };
    }),
    fc
      .tuple(junkKey, fc.jsonValue({ maxDepth: 2 }))
      .map(([key, value]) => (e: Entries) => ({ text: objectText([...e, [key, value]]), what: "unknown key" })),
    fc.constant((e: Entries) => ({
      text: objectText([...e, ["constructor", { name: "x" }]]),
      what: "constructor key",
    })),
    fc.constant((e: Entries) => ({
      text: objectText(e.map(([k, v]) => [k, typeof v === "number" ? String(v) : v])),
      what: "numbers as text",
    })),
    fc.constant((e: Entries) => ({
      text: objectText(e.map(([k, v]) => [k, typeof v === "number" ? -Math.abs(v) - 1 : v])),
      what: "negative numbers",
    })),
  ];
  if (options.poison !== false) {
    // Prototype pollution: fastify's JSON parser refuses the whole body.
    mutations.push(
      fc
        .jsonValue({ maxDepth: 2 })
        .map((value) => (e: Entries) => ({ text: objectText([...e, ["__proto__", value]]), what: "__proto__" })),
      fc.jsonValue({ maxDepth: 1 }).map((value) => (e: Entries) => ({
        text: objectText([...e, ["constructor", new RawJson(objectText([["prototype", value]]))]]),
        what: "constructor.prototype",
      })),
    );
  }
  if (op !== "enhance") {
    mutations.push(
      fc.constant((e: Entries) => ({
        text: objectText(e.filter(([k]) => k !== "fullAddress" && k !== "lat" && k !== "lng")),
        what: "no location",
      })),
      fc.tuple(fc.constantFrom("lat", "lng"), within(-90, 90)).map(([key, v]) => (e: Entries) => ({
        text: objectText([...e.filter(([k]) => k !== "fullAddress" && k !== "lat" && k !== "lng"), [key, v]]),
        what: `${key} alone`,
      })),
      fc.tuple(fc.constantFrom("lat", "lng"), within(-90, 90)).map(([key, v]) => (e: Entries) => ({
        text: objectText([...e.filter(([k]) => k !== "lat" && k !== "lng"), ["fullAddress", "1 Main St"], [key, v]]),
        what: `${key} beside an address`,
      })),
      fc
        .tuple(hugeText, fc.constantFrom("fullAddress", "city", "postalCode", "street"))
        .map(([s, key]) => (e: Entries) => ({
          text: objectText([...e.filter(([k]) => k !== key), [key, s]]),
          what: `huge ${key}`,
        })),
    );
  }
  if (op === "owned") {
    mutations.push(
      fc.tuple(within(0, 29), fc.double({ min: 1e-6, max: 40, noNaN: true })).map(([length, more]) => (e: Entries) => ({
        text: objectText([
          ...e.filter(([k]) => k !== "mortgageLength" && k !== "yearsRemainingOnMortgage"),
          ["mortgageLength", length],
          ["yearsRemainingOnMortgage", length + more],
        ]),
        what: "yearsRemaining > mortgageLength",
      })),
    );
  }
  if (op === "enhance") {
    mutations.push(
      fc.constant((e: Entries) => ({
        text: objectText([
          ...e.filter(([k]) => !k.startsWith("addAI")),
          ["addAIComps", false],
          ["addAIExpenseEstimates", false],
        ]),
        what: "no AI function",
      })),
      fc
        .constantFrom("../../etc/passwd", "", " ", "a/b", "x".repeat(129), "é", "id;drop", "%2e%2e")
        .map((id) => (e: Entries) => ({
          text: objectText([...e.filter(([k]) => k !== "analysisId"), ["analysisId", id]]),
          what: "bad analysisId",
        })),
    );
  }
  return fc.tuple(validBody(op), fc.oneof(...mutations)).map(([entries, mutate]) => mutate(entries));
}

// ---------------------------------------------------------------------------------------------
// What Excel hands a custom function: a number (Excel has no NaN or ∞, but nothing stops a caller
// of the JavaScript function), text, a boolean, null for an omitted argument, or a range (rows of
// cells) where the parameter is a matrix.

export const excelScalar: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.oneof(
      oddNumber,
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0, 1, 2, 3, 450000, 0.065),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      nanText,
      fc.string({ unit: "grapheme", maxLength: 30 }),
      fc.string({ unit: "binary", maxLength: 12 }),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null, undefined, "", "TRUE", "yes") },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 101, max: 3_000 }), fc.constantFrom("", "!", " x", "%", "k"))
      .map(([n, end]) => "9".repeat(n) + end),
  },
);

export const excelRange: fc.Arbitrary<unknown[][]> = fc.oneof(
  excelScalar.map((v) => [[v]]),
  fc.array(fc.array(excelScalar, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  fc.constantFrom<unknown[][]>([], [[]], [[], []]),
);

/** "name=value; …" text with junk: real option names, synonyms, unknown names, bad values, odd separators. */
export function optionText(op: Strategy): fc.Arbitrary<string> {
  const names = [
    ...requestFieldNames(op),
    "interest",
    "rate",
    "zip",
    "sqft",
    "ai comps",
    "AI expenses",
    "commission",
    "rent",
    "price",
    "beds",
    "lat",
    "fullAddress",
    "strategy",
  ];
  const name = fc.oneof(fc.constantFrom(...names), junkKey);
  const value = fc.oneof(
    fc.constantFrom("6.5", "6.5%", "0.065", "$2,100", "yes", "TRUE", "no", "78701", "1,450", ""),
    nanText,
    fc.string({ maxLength: 12 }),
  );
  const pair = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(name, value).map(([n, v]) => `${n}=${v}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom("=", "==", "a==b", "=5", ";", "\n", "interest=6=7") },
  );
  return fc
    .tuple(fc.array(pair, { maxLength: 5 }), fc.constantFrom("; ", ";", "\n", " ; ", ";;"))
    .map(([pairs, sep]) => pairs.join(sep));
}

/** A name/value range for options. */
export function optionRange(op: Strategy): fc.Arbitrary<unknown[][]> {
  const names = [...requestFieldNames(op), "interest", "ai comps", "commission", "zip"];
  return fc.array(
    fc.tuple(fc.oneof(fc.constantFrom(...names), excelScalar), excelScalar).map(([n, v]) => [n, v]),
    { maxLength: 4 },
  );
}

export const STRATEGY_LIST: readonly Strategy[] = STRATEGIES;

export function fieldPaths(issues: readonly FieldIssue[]): string[] {
  return issues.map((i) => i.path);
}
