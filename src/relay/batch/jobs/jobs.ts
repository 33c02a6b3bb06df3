import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { FastifyBaseLogger } from "fastify";
import { BatchRequest, DryRunAnswer } from "../../../contract";
import { parseBatch } from "../batch-request";
import { dryRunBatch } from "../batch-dry-run";
import type { Caller, Callers } from "../../callers/caller";
import type { RelayConfig } from "../../config";
import { EVENTS, RelayEvents } from "../../ops/events";
import { Gateway } from "../../gateway";
import { runJob } from "./job-run";
import { JobState, JobStore } from "./job-store";

/*
 * The jobs this relay runs (POST /v1/jobs): each is started at once and answered before it runs;
 * its items go through the gateway as a batch's do, at bulk priority unless the body says otherwise.
 * A replica runs a job under a lease it renews (`tick`); a job whose runner stopped or died is
 * resumed by the next `tick` (the next start's first), or by its caller's next GET, wherever that
 * lands. Resuming runs again only items without a result: those whose calls finished are answered
 * by the cache, and a call whose outcome is unknown is never sent again (the gateway's rules).
 */

export interface JobsOptions {
  store: JobStore;
  gateway: Gateway;
  callers: Callers;
  /** This replica (server.ts `owner`). */
  owner: string;
  /** A runner's lease holds three beats, as a replica is judged gone after three missed ones; each beat ticks. */
  heartbeatMs: number;
  config: Pick<RelayConfig, "jobTtlMs" | "mode">;
  log: FastifyBaseLogger;
  events: RelayEvents;
}

interface LocalRun {
  controller: AbortController;
  ended: Promise<void>;
}

export class Jobs {
  readonly #o: JobsOptions;
  readonly #runs = new Map<string, LocalRun>();
  #closed = false;

  constructor(options: JobsOptions) {
    this.#o = options;
  }

  get #leaseMs(): number {
    return this.#o.heartbeatMs * 3;
  }

  /** Checks the body as a batch's; a dry run prices it and starts nothing. */
  async create(body: unknown, caller: Caller): Promise<{ job: JobState } | { dryRun: DryRunAnswer }> {
    const parsed = parseBatch(body);
    if (parsed.dryRun)
      return { dryRun: await dryRunBatch(this.#o.gateway, parsed.items, this.#o.config.mode === "sandbox", caller) };
    const { maxComparables, priority } = body as BatchRequest;
    // Each item names its call, kept with the job: a run resumed after a restart asks for the same
    // calls, so an item whose call was made before is told its cost, not "cached" at 0.
    const items = (body as BatchRequest).items.map((item) =>
      typeof item === "object" && item !== null && !Array.isArray(item) && !("call" in item)
        ? { ...item, call: randomUUID() }
        : item,
    );
    const id = randomUUID();
    const options = { maxComparables, priority: priority ?? "bulk" };
    await this.#o.store.create({
      id,
      callerId: caller.id,
      items,
      options,
      runner: this.#o.owner,
      leaseMs: this.#leaseMs,
    });
    this.#start(id, { callerId: caller.id, items, options, answered: [] });
    const job: JobState = {
      id,
      callerId: caller.id,
      status: "running",
      total: items.length,
      done: 0,
      expiresAt: undefined,
      leased: true,
    };
    return { job };
  }

  /** The caller's job, resumed here if it runs and no replica's lease holds it. */
  async get(id: string, callerId: string): Promise<JobState | undefined> {
    const job = await this.#o.store.get(id, callerId);
    if (job?.status === "running" && !job.leased) await this.#resume(id);
    return job;
  }

  /**
   * Cancels the caller's job: items not sent are not sent; calls already sent finish and are
   * recorded. A run here is waited for, so the answer holds every result it kept; one on another
   * replica stops at that replica's next renewal.
   */
  async cancel(id: string, callerId: string): Promise<JobState | undefined> {
    const job = await this.#o.store.get(id, callerId);
    if (!job) return undefined;
    if (job.status === "running") await this.#o.store.finish(id, "cancelled", this.#o.config.jobTtlMs);
    const run = this.#runs.get(id);
    if (run) {
      run.controller.abort(new Error("the job was cancelled"));
      await run.ended;
    }
    return this.#o.store.get(id, callerId);
  }

  /** Renews this replica's leases (stopping runs cancelled or taken elsewhere), resumes orphans, forgets expired jobs. */
  async tick(): Promise<void> {
    const { store, owner } = this.#o;
    for (const id of await store.renew([...this.#runs.keys()], owner, this.#leaseMs))
      this.#runs.get(id)?.controller.abort(new Error("the job is no longer this replica's"));
    for (const id of await store.orphans(100)) await this.#resume(id);
    await store.sweep();
  }

  /** Stops every run here (nothing more is sent for them) and gives up their leases, for the next start to resume. */
  async close(): Promise<void> {
    this.#closed = true;
    const runs = [...this.#runs.values()];
    for (const run of runs) run.controller.abort(new Error("the relay is stopping"));
    await Promise.allSettled(runs.map((r) => r.ended));
  }

  async #resume(id: string): Promise<void> {
    if (this.#closed || this.#runs.has(id)) return;
    if (!(await this.#o.store.claim(id, this.#o.owner, this.#leaseMs))) return;
    const work = await this.#o.store.work(id);
    if (work && !this.#runs.has(id)) this.#start(id, work);
  }

  #start(id: string, work: Parameters<typeof runJob>[2]): void {
    const { store, gateway, callers, owner, log, events } = this.#o;
    const controller = new AbortController();
    // Every item of the job listens to this one signal.
    setMaxListeners(0, controller.signal);
    const label = callers.labelOf(work.callerId);
    const caller: Caller = label === undefined ? { id: work.callerId } : { id: work.callerId, label };
    const observe = { log: log.child({ job: id }), events };
    const ended = runJob({ store, gateway, observe }, id, work, caller, controller)
      .then(async (outcome) => {
        if (outcome === "done") await store.finish(id, "done", this.#o.config.jobTtlMs);
        else await store.release(id, owner);
      })
      .catch((error: unknown) => log.warn({ event: EVENTS.jobFailed, job: id, err: error }, "a job's run failed"))
      .finally(() => this.#runs.delete(id));
    this.#runs.set(id, { controller, ended });
  }
}
