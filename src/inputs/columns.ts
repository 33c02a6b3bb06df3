import {
  CellInput,
  Read,
  ReadOptions,
  readBoolean,
  readLocation,
  readMoney,
  readNumber,
  readPercent,
  readStrategy,
  readText,
} from "./values";

/**
 * A percent column's reader: 1 is 1 % in every column (a Commission of 1 was 100 % while an
 * Interest rate of 1 was 1 %); a %-formatted 100 % is written 100.
 */
const percentColumn = (v: CellInput, options: ReadOptions = {}) => readPercent(v, options);

/**
 * Which column of a user's table holds what: recognised by header, in the words real portfolios
 * use ("Beds", "List Price ($)", "Sleeps", "Zip"). The task pane shows the mapping for the user to
 * correct; the CLI prints it. One table of synonyms for both.
 */
export const INPUT_FIELDS = {
  strategy: {
    label: "Strategy",
    read: (v: CellInput) => readStrategy(v),
    names: ["strategy", "analysis", "analysis type", "deal type", "investment strategy"],
  },
  fullAddress: {
    label: "Address",
    read: readLocation,
    names: [
      "address",
      "full address",
      "fulladdress",
      "property address",
      "property",
      "street address",
      "location",
      "addr",
      "listing address",
    ],
  },
  lat: { label: "Latitude", read: readNumber, names: ["lat", "latitude"] },
  lng: { label: "Longitude", read: readNumber, names: ["lng", "lon", "long", "longitude"] },
  streetNumber: { label: "Street number", read: readText, names: ["street number", "house number", "street no"] },
  street: { label: "Street", read: readText, names: ["street", "street name", "road"] },
  unit: { label: "Unit", read: readText, names: ["unit", "apt", "apartment", "suite", "unit number"] },
  city: { label: "City", read: readText, names: ["city", "town", "municipality"] },
  county: { label: "County", read: readText, names: ["county"] },
  state: { label: "State", read: readText, names: ["state", "province", "region", "state code"] },
  postalCode: {
    label: "ZIP code",
    read: readText,
    names: ["zip", "zip code", "zipcode", "postal code", "postcode", "postal"],
  },
  country: { label: "Country", read: readText, names: ["country"] },
  purchasePriceUSD: {
    label: "Price",
    read: readMoney,
    names: [
      "price",
      "purchase price",
      "purchasepriceusd",
      "list price",
      "listing price",
      "asking price",
      "asking",
      "offer",
      "offer price",
      "cost",
      "value",
      "home value",
      "property value",
    ],
  },
  monthlyRentUSD: {
    label: "Monthly rent",
    read: readMoney,
    names: [
      "rent",
      "monthly rent",
      "monthlyrentusd",
      "rent per month",
      "lease",
      "monthly lease",
      "ltr rent",
      "long term rent",
    ],
  },
  bedrooms: {
    label: "Bedrooms",
    read: readNumber,
    names: ["beds", "bedrooms", "bed", "br", "bd", "bdrms", "bdr", "bedroom count"],
  },
  bathrooms: {
    label: "Bathrooms",
    read: readNumber,
    names: ["baths", "bathrooms", "bath", "ba", "bth", "bathroom count"],
  },
  accomodates: {
    label: "Guests",
    read: readNumber,
    names: [
      "guests",
      "accomodates",
      "accommodates",
      "sleeps",
      "max guests",
      "capacity",
      "guest capacity",
      "occupancy limit",
    ],
  },
  squareFeet: {
    label: "Square feet",
    read: readNumber,
    names: ["sqft", "square feet", "squarefeet", "sq ft", "square footage", "size", "living area", "area"],
  },
  interestRatePercentage: {
    label: "Interest rate",
    read: percentColumn,
    names: ["interest", "interest rate", "rate", "apr", "mortgage rate", "interestratepercentage"],
  },
  downPaymentPercentage: {
    label: "Down payment",
    read: percentColumn,
    names: ["down", "down payment", "downpayment", "down payment percent", "dp", "downpaymentpercentage"],
  },
  mortgageLength: {
    label: "Mortgage years",
    read: readNumber,
    names: [
      "term",
      "loan term",
      "mortgage term",
      "mortgage years",
      "mortgage length",
      "mortgagelength",
      "amortization",
    ],
  },
  yearsRemainingOnMortgage: {
    label: "Years remaining",
    read: readNumber,
    names: ["years remaining", "remaining years", "years left", "remaining term", "yearsremainingonmortgage"],
  },
  cohostCommissionPercentage: {
    label: "Commission",
    read: percentColumn,
    names: [
      "commission",
      "cohost commission",
      "co host commission",
      "management fee",
      "fee",
      "cohostcommissionpercentage",
    ],
  },
  addAIComps: { label: "AI comps", read: readBoolean, names: ["ai comps", "aicomps", "addaicomps", "ai comparables"] },
  addAIExpenseEstimates: {
    label: "AI expenses",
    read: readBoolean,
    names: ["ai expenses", "aiexpenses", "addaiexpenseestimates", "ai expense estimates"],
  },
} as const satisfies Record<
  string,
  { label: string; read: (v: CellInput, options?: ReadOptions) => Read<unknown>; names: readonly string[] }
>;

export type InputField = keyof typeof INPUT_FIELDS;
export const INPUT_FIELD_NAMES = Object.keys(INPUT_FIELDS) as InputField[];

/** One entry per column of the table: the field it holds, or null for a column to leave alone. */
export type ColumnMapping = (InputField | null)[];

/** "List Price ($)" → "list price"; "Beds #" → "beds". */
export function normalizeHeader(header: CellInput): string {
  return String(header ?? "")
    .toLowerCase()
    .replace(/\(.*?\)|\[.*?\]/g, " ")
    .replace(/[$#%€£*:]/g, " ")
    .replace(/[_\-./]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const BY_NAME = new Map<string, InputField>();
for (const field of INPUT_FIELD_NAMES) {
  for (const name of [field, ...INPUT_FIELDS[field].names]) {
    BY_NAME.set(normalizeHeader(name), field);
    BY_NAME.set(normalizeHeader(name).replace(/ /g, ""), field);
  }
}

/** The field a header names, or null. */
export function fieldOfHeader(header: CellInput): InputField | null {
  const h = normalizeHeader(header);
  return BY_NAME.get(h) ?? BY_NAME.get(h.replace(/ /g, "")) ?? null;
}

/** Recognises each column by its header; a field is taken by its first column only. */
export function recognizeColumns(headers: readonly CellInput[]): ColumnMapping {
  const taken = new Set<InputField>();
  return headers.map((header) => {
    const field = fieldOfHeader(header);
    if (!field || taken.has(field)) return null;
    taken.add(field);
    return field;
  });
}

/** What a mapping lacks to locate properties: an address column, or both coordinates. */
export function missingLocation(mapping: ColumnMapping): string | undefined {
  const has = (f: InputField) => mapping.includes(f);
  if (has("fullAddress") || (has("lat") && has("lng"))) return undefined;
  return "no column holds the location: add an Address column (or Latitude and Longitude columns)";
}
