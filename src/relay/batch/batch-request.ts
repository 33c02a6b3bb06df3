import {
  BatchItem,
  BatchRequest,
  dotPath,
  FORMULA_BATCH_MAX_ITEMS,
  MAX_BATCH_ITEMS,
  Operation,
  Priority,
  showValue,
  toFieldIssues,
} from "../../contract";
import { RelayError } from "../relay-errors";

/*
 * The body of POST /v1/batch, read: a whole-request problem (too many items, not an object, a bad
 * option) refuses the batch; a bad item fails alone, as its own line.
 */

/** One item of the batch, ready for the gateway or already failed. */
export type ParsedItem =
  | {
      index: number;
      ok: true;
      op: Operation;
      params: unknown;
      refresh: boolean;
      freshSince?: number | undefined;
      call?: string | undefined;
    }
  | { index: number; ok: false; error: RelayError };

export function parseBatch(body: unknown): {
  items: ParsedItem[];
  dryRun: boolean;
  maxComparables: number | undefined;
  priority: Priority;
  joinOnly: boolean;
} {
  const count =
    typeof body === "object" && body !== null && Array.isArray((body as { items?: unknown }).items)
      ? (body as { items: unknown[] }).items.length
      : 0;
  if (count > MAX_BATCH_ITEMS) {
    throw new RelayError(
      "STR_BATCH_TOO_LARGE",
      `The batch has ${count} items; one batch may carry at most ${MAX_BATCH_ITEMS}.`,
    );
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    const fields = [
      { path: "body", message: `must be a JSON object such as {"items": [...]}; got ${showValue(body)}` },
    ];
    throw new RelayError("STR_BAD_REQUEST", `Invalid batch: body ${fields[0]?.message}`, { fields });
  }
  const parsed = BatchRequest.safeParse(body);
  if (!parsed.success) {
    const fields = toFieldIssues(parsed.error, ["items", "dryRun", "maxComparables", "priority", "joinOnly"]);
    throw new RelayError(
      "STR_BAD_REQUEST",
      `Invalid batch: ${fields.map((f) => `${f.path} ${f.message}`).join("; ")}`,
      { fields },
    );
  }
  const items = parsed.data.items.map((raw, index): ParsedItem => {
    const item = BatchItem.safeParse(raw);
    if (!item.success) {
      const fields = toFieldIssues(
        item.error,
        ["strategy", "params", "refresh", "freshSince", "call"],
        ["items", index],
      );
      return {
        index,
        ok: false,
        error: new RelayError(
          "STR_VALIDATION",
          `Invalid item ${index}: ${fields.map((f) => `${f.path} ${f.message}`).join("; ")}`,
          { fields },
        ),
      };
    }
    const freshSince = item.data.freshSince === undefined ? undefined : Date.parse(item.data.freshSince);
    return {
      index,
      ok: true,
      op: item.data.strategy,
      params: item.data.params,
      refresh: item.data.refresh === true,
      freshSince,
      call: item.data.call,
    };
  });
  const priority = parsed.data.priority ?? (items.length <= FORMULA_BATCH_MAX_ITEMS ? "formula" : "bulk");
  return {
    items,
    dryRun: parsed.data.dryRun === true,
    maxComparables: parsed.data.maxComparables,
    priority,
    joinOnly: parsed.data.joinOnly === true,
  };
}

/**
 * Points an item's field errors at the field inside the batch: items[3].params.bedrooms; params that
 * are not an object at all (the validator's "body") are items[3].params itself.
 */
export function pointIntoItem(error: RelayError, item: ParsedItem): RelayError {
  if (!error.fields || !item.ok) return error;
  const prefix = dotPath(["items", item.index, "params"]);
  const whole = typeof item.params !== "object" || item.params === null || Array.isArray(item.params);
  for (const f of error.fields) {
    f.path =
      whole && f.path === "body" ? prefix : f.path.startsWith("[") ? `${prefix}${f.path}` : `${prefix}.${f.path}`;
  }
  return error;
}
