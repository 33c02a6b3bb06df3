import { DryRunVerdict, RelayCallError, RelayClient } from "../client";
import { MAX_BATCH_ITEMS, RelayAnswer, RelayErrorBody } from "../contract";
import {
  RowOutcome,
  ScreeningCounts,
  countOutcome,
  emptyCounts,
  failedOutcome,
  heldBack,
  lineOutcome,
  refusal,
} from "./row-outcome";
import { PlannedRow, ScreeningPlan } from "./plan";

/*
 * The run: refused rows are marked first, then the items go through the relay as POST /v1/batch
 * streams whose lines become row outcomes as they arrive. Stopping (Cancel, Ctrl-C) cuts the stream:
 * the relay drops the items it has not sent, and what arrived is kept. Items of a cut stream may
 * have been sent before the stop: each carries the name of its call, and they are asked for once
 * more with joinOnly (nothing is sent), so a row whose call was billed says so, with its cost. A
 * row the run did not reach is marked, never dropped. Writing the outcomes is the caller's (cells in
 * Excel, a workbook file).
 */

/**
 * Items per batch request for rows the dry run found cached. The relay streams them a slice at a
 * time and waits for a slow reader, but a relay of an earlier version answers a whole batch of
 * cached items at once, all in its memory: small batches, one after another, keep that bounded.
 */
export const CACHED_CHUNK_ITEMS = 200;

export interface RunHooks {
  signal?: AbortSignal;
  /** The dry run's verdict of each item, to send cached items apart from those to create. */
  verdicts?: readonly DryRunVerdict[];
  /** Comparables each answer carries (POST /v1/batch maxComparables): only what the caller shows. */
  maxComparables: number;
  /** What the user does to finish a stopped run, as the surface says it ("run again", "screen the table again"). */
  again: string;
  /** How the user sends rows held back as unusual, as the surface says it ("run again with --accept-unusual"). */
  acceptUnusual: string;
  /** Called once per row as its outcome is known; `answer` is the relay's answer, when there is one. */
  onOutcome?: (
    row: PlannedRow,
    outcome: RowOutcome,
    answer: RelayAnswer | undefined,
    counts: Readonly<ScreeningCounts>,
  ) => void;
}

export interface RunResult {
  /** Stopped before every row was answered. */
  stopped: boolean;
  counts: ScreeningCounts;
}

export async function screenRows(
  client: Pick<RelayClient, "batch">,
  plan: ScreeningPlan,
  hooks: RunHooks,
): Promise<RunResult> {
  const counts = emptyCounts(plan.rows.filter((r) => r.kind !== "blank" && r.kind !== "kept").length);
  const done = new Set<number>();
  const record = (r: number, outcome: RowOutcome, answer?: RelayAnswer) => {
    const row = plan.rows[r] as PlannedRow;
    done.add(r);
    countOutcome(counts, row, outcome);
    hooks.onOutcome?.(row, outcome, answer, counts);
  };
  plan.rows.forEach((row, r) => {
    if (row.kind === "invalid") record(r, failedOutcome(refusal(row.issues), plan.fields));
    else if (row.kind === "unusual") record(r, failedOutcome(heldBack(row.issues, hooks.acceptUnusual), plan.fields));
  });

  const cached: number[] = [];
  const toSend: number[] = [];
  plan.items.forEach((_, i) => (hooks.verdicts?.[i] === "cached" ? cached : toSend).push(i));
  // Each item names its call, to ask for it again after a stop (cut: items that may have been sent).
  const named = plan.items.map((item) => ({ ...item, call: item.call ?? globalThis.crypto.randomUUID() }));
  const cut: number[] = [];
  const sendChunk = async (itemIndexes: readonly number[]) => {
    const failure = await sendBatch(client, { ...plan, items: named }, itemIndexes, hooks, done, record);
    for (const i of itemIndexes) {
      const r = plan.itemRows[i] as number;
      if (done.has(r)) continue;
      if (hooks.signal?.aborted === true) {
        cut.push(i);
        continue;
      }
      const error =
        failure ??
        new RelayCallError(
          "STR_RELAY_BAD_ANSWER",
          `The relay's batch answer ended without this row; ${hooks.again} to fill it in.`,
        );
      record(r, failedOutcome(error, plan.fields, "failed"));
    }
  };
  // Items to create are paced by the relay and take 10–30 s each (AI up to 90 s): they go in big
  // batches, two at a time, so that enough are queued for the pacer never to idle. Cached items go
  // meanwhile, in small batches one after another.
  await Promise.all([
    lane(chunked(toSend, MAX_BATCH_ITEMS), 2, sendChunk, hooks.signal),
    lane(chunked(cached, CACHED_CHUNK_ITEMS), 1, sendChunk, hooks.signal),
  ]);

  const stopped = hooks.signal?.aborted === true;
  // A relay that cannot say (it is gone) leaves them marked not reached, as before this step.
  if (cut.length > 0) await sendBatch(client, { ...plan, items: named }, cut, hooks, done, record, true);
  // Rows of chunks never started, and of cut streams whose calls were never made.
  plan.itemRows.forEach((r) => {
    if (!done.has(r)) record(r, failedOutcome(notReached(hooks.again), plan.fields, "stopped"));
  });
  return { stopped, counts };
}

/**
 * Sends one batch; resolves with what it failed with, if it did. `joinOnly`: after a stop, the items
 * of cut streams asked for once more without sending anything (BatchRequest.joinOnly): answered from
 * their calls if made (waiting for one still running), so a row billed before the stop is told so,
 * with its cost; one never sent (STR_NOT_SENT) stays unanswered here, to be marked not reached.
 */
async function sendBatch(
  client: Pick<RelayClient, "batch">,
  plan: ScreeningPlan,
  itemIndexes: readonly number[],
  hooks: RunHooks,
  done: ReadonlySet<number>,
  record: (r: number, outcome: RowOutcome, answer?: RelayAnswer) => void,
  joinOnly = false,
): Promise<unknown> {
  const rows = itemIndexes.map((i) => plan.itemRows[i] as number);
  try {
    await client.batch(
      itemIndexes.map((i) => plan.items[i] as (typeof plan.items)[number]),
      {
        ...(hooks.signal && !joinOnly ? { signal: hooks.signal } : {}),
        ...(joinOnly ? { joinOnly } : {}),
        maxComparables: hooks.maxComparables,
        // A table's rows: after the same token's formulas, which cells wait on.
        priority: "bulk",
        onLine: (line) => {
          const r = rows[line.index];
          if (r === undefined || done.has(r)) return;
          if (joinOnly && line.status !== 200 && (line.body as RelayErrorBody).error?.code === "STR_NOT_SENT") return;
          const { outcome, answer } = lineOutcome(line.body, plan.fields);
          record(r, outcome, answer);
        },
      },
    );
    return undefined;
  } catch (error) {
    return error;
  }
}

async function lane(
  chunks: number[][],
  concurrency: number,
  send: (chunk: number[]) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < chunks.length && !signal?.aborted) await send(chunks[next++] as number[]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function chunked(list: readonly number[], size: number): number[][] {
  const chunks: number[][] = [];
  for (let i = 0; i < list.length; i += size) chunks.push(list.slice(i, i + size));
  return chunks;
}

function notReached(again: string): RelayCallError {
  return new RelayCallError(
    "STR_CANCELLED",
    `Stopped before this row was answered: ${again} to finish (rows already answered come from the cache, free).`,
  );
}
