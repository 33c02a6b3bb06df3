import { PassThrough } from "node:stream";
import {
  BatchItem,
  BatchLine,
  BatchRequest,
  FORMULA_BATCH_MAX_ITEMS,
  MAX_BATCH_ITEMS,
  Operation,
  PendingLine,
  Priority,
  RelayAnswer,
  dotPath,
  showValue,
  toFieldIssues,
} from "../contract";
import type { FastifyBaseLogger } from "fastify";
import { BatchTally } from "./batch-summary";
import type { Caller } from "./caller";
import { RelayError, asRelayError } from "./errors";
import { RelayEvents } from "./events";
import { Gateway } from "./gateway";
import { closingDelayMs, pendingLine } from "./pending";

/**
 * POST /v1/batch: many analyses in one request. Items run through the same gateway as single
 * calls (cache, sharing, budget, pacing); each answer is one NDJSON line, written as it completes.
 * A bad item fails alone. When the caller disconnects, items not yet sent are dropped.
 */
export type ParsedItem =
  | { index: number; ok: true; op: Operation; params: unknown; refresh: boolean; freshSince?: number | undefined }
  | { index: number; ok: false; error: RelayError };

export function parseBatch(body: unknown): {
  items: ParsedItem[];
  dryRun: boolean;
  maxComparables: number | undefined;
  priority: Priority;
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
    const fields = toFieldIssues(parsed.error, ["items", "dryRun", "maxComparables", "priority"]);
    throw new RelayError(
      "STR_BAD_REQUEST",
      `Invalid batch: ${fields.map((f) => `${f.path} ${f.message}`).join("; ")}`,
      { fields },
    );
  }
  const items = parsed.data.items.map((raw, index): ParsedItem => {
    const item = BatchItem.safeParse(raw);
    if (!item.success) {
      const fields = toFieldIssues(item.error, ["strategy", "params", "refresh", "freshSince"], ["items", index]);
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
    };
  });
  const priority = parsed.data.priority ?? (items.length <= FORMULA_BATCH_MAX_ITEMS ? "formula" : "bulk");
  return { items, dryRun: parsed.data.dryRun === true, maxComparables: parsed.data.maxComparables, priority };
}

/**
 * Items started per turn of the event loop. Cached items are answered with no I/O to wait on (the
 * SQLite store is synchronous), so a batch started whole would hold the event loop until its last
 * line was made: about 0.1 s per 1,000 cached items, with every other caller of this relay waiting
 * and not one line sent. Started a slice at a time, lines go out as they are made and other requests
 * are served in between.
 */
export const ITEMS_PER_TURN = 100;

/**
 * How much of the answer may wait unread before no more items are started: a caller that reads
 * slowly, or not at all, holds this much of the relay's memory, not a whole batch of answers.
 */
export const UNREAD_LIMIT_BYTES = 1 << 20;

export interface StreamOptions {
  maxComparables?: number | undefined;
  /**
   * The answer reaches the caller by then (ms from now), whatever is still running: it is ended a
   * little earlier (closingDelayMs), each item not answered yet getting a pending line; their work
   * goes on and their answers are kept, for the client to ask again.
   */
  deadlineMs?: number | undefined;
  /** Who sent the batch (caller.ts). */
  caller?: Caller | undefined;
  /** Where each item's events and the batch's summary line go (events.ts, batch-summary.ts). */
  observe?: { log: FastifyBaseLogger; events: RelayEvents } | undefined;
  /** Its items' place in the caller's turn for send slots (parseBatch settles the default). */
  priority?: Priority | undefined;
}

/** Runs every item; the stream carries one line per item in completion order and ends after the last (or at the deadline). */
export function streamBatch(
  gateway: Gateway,
  items: ParsedItem[],
  signal: AbortSignal,
  options: StreamOptions = {},
): PassThrough {
  const out = new PassThrough({ writableHighWaterMark: UNREAD_LIMIT_BYTES });
  const receivedAt = Date.now();
  const answered = new Set<number>();
  let open = items.length;
  const tally = new BatchTally(items.length);
  const { observe, caller } = options;
  if (observe) out.once("close", () => tally.log(observe.log, caller));
  const write = (line: BatchLine | PendingLine) => {
    if (out.writableEnded) return;
    answered.add(line.index);
    tally.add(line);
    out.write(`${JSON.stringify(line)}\n`);
  };
  // Only what reaches the caller counts: an item finishing after the deadline was answered as pending.
  const ended = (item: ParsedItem, result: RelayAnswer | RelayError) => {
    if (out.writableEnded) return;
    const context = { caller, operation: item.ok ? item.op : undefined, index: item.index };
    observe?.events.analysisEnded(observe.log, context, result);
  };
  const settle = () => {
    if (--open === 0) {
      clearTimeout(deadline);
      out.end();
    }
  };
  const run = (item: ParsedItem) => {
    if (!item.ok) {
      ended(item, item.error);
      write({ index: item.index, status: item.error.statusCode, body: item.error.toBody() });
      settle();
      return;
    }
    gateway
      .analyze(item.op, item.params, {
        refresh: item.refresh,
        freshSince: item.freshSince,
        signal,
        caller,
        priority: options.priority,
        maxComparables: options.maxComparables,
      })
      .then(
        (answer) => {
          ended(item, answer);
          write({ index: item.index, status: 200, body: answer });
        },
        (error: unknown) => {
          if (signal.aborted) return;
          const e = asRelayError(error);
          if (e.fields) {
            // Point at the field inside the item: items[3].params.bedrooms; params that are not an
            // object at all (the validator's "body") are items[3].params itself.
            const prefix = dotPath(["items", item.index, "params"]);
            const whole = typeof item.params !== "object" || item.params === null || Array.isArray(item.params);
            e.fields.forEach(
              (f) =>
                (f.path =
                  whole && f.path === "body"
                    ? prefix
                    : f.path.startsWith("[")
                      ? `${prefix}${f.path}`
                      : `${prefix}.${f.path}`),
            );
          }
          ended(item, e);
          write({ index: item.index, status: e.statusCode, body: e.toBody() });
        },
      )
      .finally(settle);
  };
  let next = 0;
  // At the deadline every item is started (its work goes on), and each not answered yet is told to
  // ask again. Ending the answer ourselves is not a disconnect: nothing pending is dropped.
  const closeAtDeadline = () => {
    if (out.writableEnded) return;
    for (; next < items.length; next++) run(items[next] as ParsedItem);
    for (const item of items) {
      if (answered.has(item.index)) continue;
      observe?.events.analysisPending();
      write(pendingLine(item.index, item.ok && item.refresh ? (item.freshSince ?? receivedAt) : undefined));
    }
    out.end();
  };
  const deadline = setTimeout(closeAtDeadline, closingDelayMs(options.deadlineMs));
  deadline.unref();
  const startSlice = () => {
    // The caller has gone: items not started yet are never started (nor sent, nor billed).
    if (signal.aborted || out.destroyed) {
      if (!out.writableEnded) out.end();
      return;
    }
    for (const end = Math.min(items.length, next + ITEMS_PER_TURN); next < end; next++) run(items[next] as ParsedItem);
    if (next >= items.length) return;
    if (!out.writableNeedDrain) return void setImmediate(startSlice);
    const resume = () => {
      out.off("drain", resume);
      out.off("close", resume);
      setImmediate(startSlice);
    };
    out.on("drain", resume);
    out.on("close", resume);
  };
  startSlice();
  if (items.length === 0) {
    clearTimeout(deadline);
    out.end();
  }
  return out;
}
