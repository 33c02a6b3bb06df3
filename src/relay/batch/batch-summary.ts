import type { FastifyBaseLogger } from "fastify";
import { BatchLine, PendingLine, centsToUSD } from "../../contract";
import type { Caller } from "../callers/caller";
import { EVENTS } from "../ops/events";

/**
 * The one summary line of a batch (`batch.done`): its items by status and by outcome code, what it
 * billed and how long it took. Items the caller left before they were answered count as unanswered.
 */
export class BatchTally {
  readonly #startedAt = performance.now();
  readonly #byStatus: Record<string, number> = {};
  readonly #byCode: Record<string, number> = {};
  #answered = 0;
  #billedCents = 0;

  constructor(readonly items: number) {}

  /** Counts one line written to the caller. */
  add(line: BatchLine | PendingLine): void {
    this.#answered++;
    bump(this.#byStatus, String(line.status));
    const body = line.body as { success?: boolean; pending?: boolean; error?: { code?: string }; relay?: unknown };
    const code = line.status === 200 ? "OK" : body.pending === true ? "PENDING" : (body.error?.code ?? "UNKNOWN");
    bump(this.#byCode, code);
    const relay = body.relay as { costUSD?: number } | undefined;
    if (line.status === 200 && relay?.costUSD) this.#billedCents += Math.round(relay.costUSD * 100);
  }

  log(log: FastifyBaseLogger, caller: Caller | undefined): void {
    const unanswered = this.items - this.#answered;
    const billedUSD = centsToUSD(this.#billedCents);
    log.info(
      {
        event: EVENTS.batch,
        ...(caller ? { caller: caller.id } : {}),
        items: this.items,
        byStatus: this.#byStatus,
        byCode: this.#byCode,
        ...(unanswered > 0 ? { unanswered } : {}),
        billedUSD,
        durationMs: Math.round(performance.now() - this.#startedAt),
      },
      `batch of ${this.items} items: ${Object.entries(this.#byCode)
        .map(([code, n]) => `${n} ${code}`)
        .join(", ")}; billed ${billedUSD.toFixed(2)} USD`,
    );
  }
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
