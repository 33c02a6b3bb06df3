import { z } from "zod";
import { Operation } from "./operations";
import { flagField, idField, numberField, textField } from "./rules";

/*
 * The five request bodies of the service (spec: "Endpoints"), as zod schemas.
 *
 * Bodies are strict: the live service answers 400 to a misspelt field (observed: `address` for
 * `fullAddress`), so an unknown field is refused here, before anything is sent, with a suggestion.
 * Ranges the spec states are enforced as stated; bounds it only implies (finite, not negative,
 * coordinates on the globe, strings of sane length) are enforced too.
 */

// Spec: "Location parameters". The pairing rule is checked by `locationRule` below.
const locationFields = {
  lat: numberField({ min: -90, max: 90, unit: "degrees" }).optional(),
  lng: numberField({ min: -180, max: 180, unit: "degrees" }).optional(),
  fullAddress: textField(300).optional(),
};

// Spec: "Optional address and property parameters".
const addressFields = {
  state: textField(100).optional(),
  city: textField(100).optional(),
  county: textField(100).optional(),
  postalCode: textField(20).optional(),
  country: textField(100).optional(),
  street: textField(200).optional(),
  streetNumber: textField(20).optional(),
  unit: textField(50).optional(),
  squareFeet: numberField({ min: 0, exclusiveMin: true, max: 1_000_000, unit: "square feet" }).optional(),
};

// Spec: "AI parameters" (create endpoints and enhance).
const aiFields = {
  addAIComps: flagField().optional(),
  addAIExpenseEstimates: flagField().optional(),
};

const purchasePriceUSD = numberField({ min: 0, exclusiveMin: true, max: 1_000_000_000, unit: "USD" });
const monthlyRentUSD = numberField({ min: 0, exclusiveMin: true, max: 1_000_000, unit: "USD a month" });
const bedrooms = numberField({ min: 0, max: 50, integer: true });
const bathrooms = numberField({ min: 0, max: 50, step: 0.5 });
// The service spells this field "accomodates" in requests (and "accommodates" in comparables).
const accomodates = numberField({ min: 1, max: 100, integer: true, unit: "guests" });
/**
 * The most each percent field may be: the request's rule, and how a reader tells a %-formatted 100 %
 * (a cell holding 1) from 1 % — 1 reads as 100 % only where 100 % is allowed (inputs/values.ts).
 */
export const PERCENT_FIELD_MAX = {
  interestRatePercentage: 15,
  downPaymentPercentage: 40,
  cohostCommissionPercentage: 100,
} as const;
const interestRatePercentage = numberField({ min: 0, max: PERCENT_FIELD_MAX.interestRatePercentage, unit: "percent" });
const downPaymentPercentage = numberField({ min: 0, max: PERCENT_FIELD_MAX.downPaymentPercentage, unit: "percent" });
const mortgageLength = numberField({ min: 0, max: 30, unit: "years" });
const yearsRemainingOnMortgage = numberField({ min: 0, max: 30, unit: "years" });
const cohostCommissionPercentage = numberField({
  min: 0,
  max: PERCENT_FIELD_MAX.cohostCommissionPercentage,
  unit: "percent",
});

const always = { when: () => true };

type Ctx = z.RefinementCtx;

/** Spec: "send both lat and lng, or send fullAddress". A lone coordinate is refused even beside an address. */
function locationRule(body: { lat?: unknown; lng?: unknown; fullAddress?: unknown }, ctx: Ctx): void {
  if (typeof body !== "object" || body === null) return;
  const hasLat = body.lat !== undefined;
  const hasLng = body.lng !== undefined;
  if (hasLat !== hasLng) {
    const missing = hasLat ? "lng" : "lat";
    ctx.addIssue({
      code: "custom",
      path: [missing],
      input: undefined,
      message: `is required with ${hasLat ? "lat" : "lng"}: give lat and lng together, or fullAddress alone`,
    });
  } else if (!hasLat && body.fullAddress === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["fullAddress"],
      input: undefined,
      message: "is required unless lat and lng are both given (the location rule)",
    });
  }
}

/** Spec: yearsRemainingOnMortgage "must not exceed mortgageLength". */
function mortgageRule(body: { mortgageLength?: unknown; yearsRemainingOnMortgage?: unknown }, ctx: Ctx): void {
  if (typeof body !== "object" || body === null) return;
  const { mortgageLength: length, yearsRemainingOnMortgage: remaining } = body;
  // Only against a valid length: a bad mortgageLength is its own issue, not the remaining years'.
  if (
    typeof length === "number" &&
    mortgageLength.safeParse(length).success &&
    typeof remaining === "number" &&
    remaining > length
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["yearsRemainingOnMortgage"],
      input: remaining,
      message: `must not exceed mortgageLength (${length} years); got ${remaining}`,
    });
  }
}

/** enhance with no AI function requested would do nothing: refuse it rather than send it. */
function someAiRule(body: { addAIComps?: unknown; addAIExpenseEstimates?: unknown }, ctx: Ctx): void {
  if (typeof body !== "object" || body === null) return;
  if (body.addAIComps !== true && body.addAIExpenseEstimates !== true) {
    ctx.addIssue({
      code: "custom",
      path: ["addAIComps"],
      input: body.addAIComps,
      message: "enhance needs at least one AI function: set addAIComps or addAIExpenseEstimates to true",
    });
  }
}

const createFields = { ...locationFields, ...addressFields, ...aiFields };

export const BuyRequest = z
  .strictObject({
    ...createFields,
    purchasePriceUSD,
    bedrooms,
    bathrooms,
    accomodates,
    monthlyRentUSD: monthlyRentUSD.optional(),
    interestRatePercentage: interestRatePercentage.optional(),
  })
  .superRefine(locationRule, always);
export type BuyRequest = z.infer<typeof BuyRequest>;

export const ArbRequest = z
  .strictObject({
    ...createFields,
    monthlyRentUSD,
    bedrooms,
    bathrooms,
    accomodates,
    purchasePriceUSD: purchasePriceUSD.optional(),
  })
  .superRefine(locationRule, always);
export type ArbRequest = z.infer<typeof ArbRequest>;

export const OwnedRequest = z
  .strictObject({
    ...createFields,
    purchasePriceUSD,
    downPaymentPercentage,
    interestRatePercentage,
    mortgageLength,
    yearsRemainingOnMortgage,
    bedrooms,
    bathrooms,
    accomodates,
    monthlyRentUSD: monthlyRentUSD.optional(),
  })
  .superRefine(locationRule, always)
  .superRefine(mortgageRule, always);
export type OwnedRequest = z.infer<typeof OwnedRequest>;

export const CohostRequest = z
  .strictObject({
    ...createFields,
    bedrooms,
    bathrooms,
    accomodates,
    cohostCommissionPercentage: cohostCommissionPercentage.optional(),
  })
  .superRefine(locationRule, always);
export type CohostRequest = z.infer<typeof CohostRequest>;

export const EnhanceRequest = z
  .strictObject({
    analysisId: idField(),
    ...aiFields,
  })
  .superRefine(someAiRule, always);
export type EnhanceRequest = z.infer<typeof EnhanceRequest>;

export type CreateRequest = BuyRequest | ArbRequest | OwnedRequest | CohostRequest;
export type AnyRequest = CreateRequest | EnhanceRequest;

/** The request schema of each operation. */
export const REQUEST_SCHEMAS = {
  buy: BuyRequest,
  arb: ArbRequest,
  owned: OwnedRequest,
  cohost: CohostRequest,
  enhance: EnhanceRequest,
} as const satisfies Record<Operation, z.ZodType>;

export type RequestOf<Op extends Operation> = z.infer<(typeof REQUEST_SCHEMAS)[Op]>;

/** Every field name a create request of `strategy` accepts. */
export function requestFieldNames(op: Operation): string[] {
  return Object.keys(REQUEST_SCHEMAS[op].shape);
}

/** The fields a request of `op` cannot do without (the location pair aside). */
export function requiredFieldNames(op: Operation): string[] {
  const shape = REQUEST_SCHEMAS[op].shape as Record<string, z.ZodType>;
  return Object.entries(shape)
    .filter(([, schema]) => !schema.safeParse(undefined).success)
    .map(([name]) => name);
}

/** The rule text of a request field ("a number from 0 to 15 (percent)"), for help and docs. */
export function fieldRule(op: Operation, field: string): string | undefined {
  const shape = REQUEST_SCHEMAS[op].shape as Record<string, z.ZodType | undefined>;
  const schema = shape[field];
  if (!schema) return undefined;
  return (
    schema.description ?? (schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType).description : undefined)
  );
}
