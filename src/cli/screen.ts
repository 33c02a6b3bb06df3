import { DryRunVerdict, RelayCallError, RelayClient } from "../client";
import { BatchItem, MAX_BATCH_ITEMS, describeIssues } from "../contract";
import { Outcomes, RowOutcome } from "./outcomes";
import { Plan, PlannedRow } from "./plan";

/**
 * Sends a plan's rows through the relay: a dry run (what it would cost, spending nothing) and the
 * run itself, as POST /v1/batch streams of at most MAX_BATCH_ITEMS items whose answers are recorded
 * as they arrive. Cancelling (Ctrl-C) cuts the stream: the relay drops the items it has not sent,
 * and what arrived is kept. A row the run did not reach is marked, never dropped.
 */

/**
 * Items per batch request for rows the dry run found cached. This relay streams them a slice at a
 * time and waits for a slow reader (relay/batch.ts), but a relay of an earlier version answers a
 * whole batch of cached items at once, all in its memory: small batches, one after another, keep
 * that bounded against either, and cost one round trip per 200 rows.
 */
export const CACHED_CHUNK_ITEMS = 200;

export interface RunHooks {
  signal?: AbortSignal;
  /** The dry run's verdict of each item, to send cached items apart from those to create. */
  verdicts?: readonly DryRunVerdict[];
  /** Called once per row as its outcome is known. */
  onOutcome?: (row: PlannedRow, outcome: RowOutcome) => void;
}

/** Records refused rows, then screens the rest; resolves with whether the run was stopped. */
export async function screenRows(client: RelayClient, plan: Plan, outcomes: Outcomes, hooks: RunHooks = {}): Promise<{ stopped: boolean }> {
  plan.rows.forEach((row, r) => {
    if (row.kind !== "invalid") return;
    const outcome = outcomes.failed(r, { success: false, error: { code: "STR_VALIDATION", message: describeIssues(row.issues), fields: row.issues } });
    hooks.onOutcome?.(row, outcome);
  });

  const cached: number[] = [];
  const toSend: number[] = [];
  plan.items.forEach((_, i) => (hooks.verdicts?.[i] === "cached" ? cached : toSend).push(i));
  // Items to create are paced by the relay and take 10–30 s each (AI up to 90 s): they go in big
  // batches, two at a time, so that enough are queued for the pacer never to idle. Cached items go
  // meanwhile, in small batches one after another.
  await Promise.all([lane(chunked(toSend, MAX_BATCH_ITEMS), 2), lane(chunked(cached, CACHED_CHUNK_ITEMS), 1)]);

  async function lane(chunks: number[][], concurrency: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < chunks.length && !hooks.signal?.aborted) await screenChunk(client, plan, outcomes, chunks[next++] as number[], hooks);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  const stopped = hooks.signal?.aborted === true;
  // Rows of chunks never started.
  plan.rows.forEach((row, r) => {
    if (row.kind !== "request" || outcomes.has(r)) return;
    hooks.onOutcome?.(row, outcomes.failed(r, notReached(), "stopped"));
  });
  return { stopped };
}

function chunked(list: readonly number[], size: number): number[][] {
  const chunks: number[][] = [];
  for (let i = 0; i < list.length; i += size) chunks.push(list.slice(i, i + size));
  return chunks;
}

/** Sends the items `itemIndexes` (indexes into plan.items) as one batch and records each row's outcome. */
async function screenChunk(client: RelayClient, plan: Plan, outcomes: Outcomes, itemIndexes: readonly number[], hooks: RunHooks): Promise<void> {
  const rows = itemIndexes.map((i) => plan.itemRows[i] as number);
  let failure: unknown;
  try {
    await client.batch(
      itemIndexes.map((i) => plan.items[i] as BatchItem),
      {
        ...(hooks.signal ? { signal: hooks.signal } : {}),
        // Only the comparables the Comparables sheet shows: a line of 50 is ten times one of five.
        maxComparables: outcomes.compsPerRow,
        onLine: (line) => {
          const r = rows[line.index];
          if (r === undefined || outcomes.has(r)) return;
          hooks.onOutcome?.(plan.rows[r] as PlannedRow, outcomes.answered(r, line.body));
        },
      },
    );
  } catch (error) {
    failure = error;
  }
  for (const r of rows) {
    if (outcomes.has(r)) continue;
    const stopped = hooks.signal?.aborted === true;
    const error = stopped ? notReached() : (failure ?? new RelayCallError("STR_RELAY_BAD_ANSWER", "The relay's batch answer ended without this row; run again to screen it."));
    hooks.onOutcome?.(plan.rows[r] as PlannedRow, outcomes.failed(r, error, stopped ? "stopped" : "failed"));
  }
}

function notReached(): RelayCallError {
  return new RelayCallError("STR_CANCELLED", "Stopped before this row was answered: run again to finish (rows already answered come from the cache, free).");
}
