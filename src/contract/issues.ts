import { z } from "zod";
import { Operation } from "./operations";
import { REQUEST_SCHEMAS, RequestOf, requestFieldNames } from "./requests";

/** One bad field: where it is (a dot path such as `items[3].params.bedrooms`) and what rule it broke. */
export const FieldIssue = z.object({ path: z.string(), message: z.string() });
export type FieldIssue = z.infer<typeof FieldIssue>;

export type Validated<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

/**
 * Names users reach for that the service spells differently. The service's own spelling of
 * "accomodates" is the classic trap; the rest are the words a spreadsheet column would use.
 */
const SUGGESTIONS: Readonly<Record<string, string>> = {
  address: "fullAddress",
  fulladdress: "fullAddress",
  latitude: "lat",
  longitude: "lng",
  lon: "lng",
  long: "lng",
  accommodates: "accomodates",
  guests: "accomodates",
  sleeps: "accomodates",
  beds: "bedrooms",
  baths: "bathrooms",
  price: "purchasePriceUSD",
  purchaseprice: "purchasePriceUSD",
  rent: "monthlyRentUSD",
  monthlyrent: "monthlyRentUSD",
  zip: "postalCode",
  zipcode: "postalCode",
  postcode: "postalCode",
  interestrate: "interestRatePercentage",
  downpayment: "downPaymentPercentage",
  downpaymentpercent: "downPaymentPercentage",
  commission: "cohostCommissionPercentage",
  id: "analysisId",
  _id: "analysisId",
  aicomps: "addAIComps",
  aiexpenses: "addAIExpenseEstimates",
};

export function suggestField(unknown: string, known: readonly string[]): string | undefined {
  const key = unknown.replace(/[\s_-]/g, "").toLowerCase();
  const alias = SUGGESTIONS[key] ?? SUGGESTIONS[unknown.toLowerCase()];
  if (alias && known.includes(alias)) return alias;
  return known.find((name) => name.toLowerCase() === key);
}

/** A key a dot path can show bare; one that is empty or holds a space, control character, dot, bracket or quote is shown quoted: `params[""]`, `params["a.b"]`. */
const PLAIN_KEY = /^[^\s.[\]"'\p{Cc}]+$/u;

/** Dot path in the form users read: `items[3].params.bedrooms`, `params["a b"]` for a key that is not a plain name. */
export function dotPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const whole of path) {
    if (typeof whole === "number") {
      out += `[${whole}]`;
      continue;
    }
    // A key is the caller's, of any length: cut to what an issue shows before it is looked at, since
    // a regular expression run over megabytes of it (once V8 has compiled it) overflows the stack.
    const part = typeof whole === "string" ? clipped(whole) : String(whole);
    if (typeof whole === "string" && PLAIN_KEY.test(part)) out += out === "" ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/**
 * Most fields one error names. A body of a million unknown fields is legal JSON within the size
 * limit; naming each would make an answer and a log line many times the body's size.
 */
export const MAX_FIELD_ISSUES = 20;
/** Longest path or message an issue keeps: a field's name is the caller's, of any length. */
const MAX_ISSUE_TEXT = 200;

/**
 * Turns a zod error into one issue per bad field, each naming the field and the rule: the first
 * MAX_FIELD_ISSUES, then one issue saying how many more there are.
 */
export function toFieldIssues(
  error: z.ZodError,
  knownFields: readonly string[] = [],
  prefix: readonly PropertyKey[] = [],
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  let total = 0;
  const add = (path: () => string, message: () => string) => {
    if (total++ < MAX_FIELD_ISSUES) issues.push({ path: clipped(path()), message: clipped(message()) });
  };
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        add(
          () => dotPath([...path, key]),
          () => {
            const hint = suggestField(key, knownFields);
            return `is not a field of this request${hint ? ` (did you mean ${hint}?)` : ""}`;
          },
        );
      }
    } else {
      add(
        () => dotPath(path),
        () => issue.message,
      );
    }
  }
  if (total > MAX_FIELD_ISSUES)
    issues.push({ path: "", message: `and ${(total - MAX_FIELD_ISSUES).toLocaleString("en-US")} more` });
  return issues;
}

function clipped(text: string): string {
  return text.length <= MAX_ISSUE_TEXT ? text : `${text.slice(0, MAX_ISSUE_TEXT - 1)}…`;
}

function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "a list";
  return typeof value === "string" ? "text" : `a ${typeof value}`;
}

/** "bedrooms is required; interestRatePercentage must be a number from 0 to 15 (percent); got 18" */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path} ${i.message}` : i.message)).join("; ");
}

/** Validates a request body for `op`. The one entry point every part uses before anything is sent. */
export function validateRequest<Op extends Operation>(op: Op, body: unknown): Validated<RequestOf<Op>> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, issues: [{ path: "body", message: `must be a JSON object; got ${describeType(body)}` }] };
  }
  const result = REQUEST_SCHEMAS[op].safeParse(body);
  if (result.success) return { ok: true, value: result.data as RequestOf<Op> };
  return { ok: false, issues: toFieldIssues(result.error, requestFieldNames(op)) };
}
