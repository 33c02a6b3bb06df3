import type { FastifyBaseLogger } from "fastify";
import { BatchLine } from "../../../contract";
import { streamBatch } from "../stream-batch";
import { parseBatch } from "../batch-request";
import type { Caller } from "../../callers/caller";
import { RelayEvents } from "../../ops/events";
import { Gateway } from "../../gateway";
import { JobStore, JobWork } from "./job-store";

/*
 * One run of a job's items not answered yet, as a batch runs them (stream-batch.ts: the same gateway, a few
 * items at a time, nothing sent once the signal aborts), with no deadline: each line is kept in the
 * store as it comes, so a run that stops (a cancel, a relay stopping or dying) leaves what finished,
 * and the next run, here or on another replica, runs only the rest.
 */

export interface RunParts {
  store: JobStore;
  gateway: Gateway;
  observe: { log: FastifyBaseLogger; events: RelayEvents };
}

/** "done" when every item has its result in the store; "stopped" when the signal or the store stopped it first. */
export async function runJob(
  parts: RunParts,
  id: string,
  work: JobWork,
  caller: Caller,
  controller: AbortController,
): Promise<"done" | "stopped"> {
  const { items } = parseBatch({ items: work.items });
  const answered = new Set(work.answered);
  const remaining = items.filter((item) => !answered.has(item.index));
  // A store that cannot take results stops the run: what it would send could not be told to anyone.
  const writer = new ResultWriter(parts.store, id, () => controller.abort(new Error("the store refused results")));
  const stream = streamBatch(parts.gateway, remaining, controller.signal, {
    caller,
    priority: work.options.priority,
    maxComparables: work.options.maxComparables,
    observe: parts.observe,
  });
  let text = "";
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    text += chunk.toString("utf8");
    let end: number;
    while ((end = text.indexOf("\n")) >= 0) {
      const line = JSON.parse(text.slice(0, end)) as BatchLine;
      text = text.slice(end + 1);
      writer.add({ index: line.index, body: line.body });
    }
  }
  await writer.flush();
  return !writer.failed && writer.written + answered.size === items.length ? "done" : "stopped";
}

/** Writes results as they come, those that arrive during a write together in the next one. */
class ResultWriter {
  written = 0;
  failed = false;
  readonly #queue: { index: number; body: unknown }[] = [];
  #busy: Promise<void> | undefined;

  constructor(
    readonly store: JobStore,
    readonly id: string,
    readonly onFailure: () => void,
  ) {}

  add(result: { index: number; body: unknown }): void {
    if (this.failed) return;
    this.#queue.push(result);
    this.#busy ??= this.#drain();
  }

  async flush(): Promise<void> {
    while (this.#busy) await this.#busy;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        await this.store.putResults(this.id, batch);
        this.written += batch.length;
      }
    } catch {
      this.failed = true;
      this.onFailure();
    } finally {
      this.#busy = undefined;
    }
  }
}
