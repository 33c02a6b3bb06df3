import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { AcquireOptions, Pacer, PacingRule, SLOW_DOWN_MS, Slot, WRITE_DEADLINE_MS } from "./pacer";
import { FORGET_WAITING, REPORT_RELEASES, TAKE_SLOT, THROTTLED } from "./redis-pacer-scripts";
import { RedisScript, redisScript } from "../store/shared-clients";
import { partError } from "../store/store-down";
import { Waiters } from "./waiters";

/*
 * The pacer of relay replicas: the same rule as LocalPacer (at most `limit` sends in any sliding
 * `windowMs`, spaced evenly with a little catch-up at twice the rate, paused after a 429 and then
 * slower for a while), kept in Redis so that every replica together stays within the account's limit.
 *
 * One Lua script decides each send slot on Redis's clock (TIME), so replicas whose clocks differ
 * still share one schedule. The script either grants a slot or says how long until one could be
 * granted; each replica queues its own callers and polls for them, one script call at a time, so
 * Redis sees one poll per replica rather than one per waiting call. Each poll also reports the
 * slots this replica released since the last one, so that the log counts their requests from when
 * they left rather than from the latest they could have (pacer.ts); with no poll to carry them (no
 * caller waits here, or the pacer is closing), a report of its own does.
 *
 * Callers take turns across replicas as they do in one process (waiters.ts): each poll registers
 * the callers this replica has waiting, for a moment (REGISTRATION_MS), and the script gives the
 * slot to the caller served longest ago among all registered, on whichever replica has it waiting.
 * So a caller's share does not depend on which replica its requests reach (relay.md).
 */

/**
 * How long a slot of the Redis pacer stays good, counted from when it was asked for: Redis decided
 * it somewhere within the round trip, and the replica's clock cannot tell where without trusting
 * the two clocks to agree. It covers that round trip and the ledger row written in Postgres before
 * the send; a grant that took longer to arrive is released unused, so Redis must be a few
 * milliseconds away at most, as it is beside the replicas.
 */
export const SHARED_SLOT_LIFETIME_MS = 30;

/** Grants in a row that arrive too late to use before the waiting callers are told Redis is too slow. */
const STALE_GRANTS_TO_FAIL = 20;

/**
 * How long a replica's registration of its waiting callers lasts unless renewed. Each poll renews
 * it (polls are at most MAX_NAP_MS apart), and a replica with nobody left waiting removes its own;
 * one that dies leaves its callers registered this long, their turns passing to the other replicas'
 * callers after two spacings each (redis-pacer-scripts.ts).
 */
const REGISTRATION_MS = 1000;
/** The longest a poll sleeps, so that its registrations are renewed well within REGISTRATION_MS. */
const MAX_NAP_MS = 250;

/** As in LocalPacer: how many spacings late a poll may be and still have the sends it delayed catch up. */
const CATCH_UP = 4;

export class RedisPacer implements Pacer {
  readonly #rule: PacingRule;
  readonly #keys: { log: string; state: string; waiting: string; turns: string };
  readonly #forget: RedisScript;
  /** This pacer's name in the registrations. */
  readonly #replica = randomBytes(6).toString("hex");
  readonly #takeSlot: RedisScript;
  readonly #reportReleases: RedisScript;
  readonly #throttled: RedisScript;
  readonly #waiters = new Waiters();
  /** Slots released since the last report: the slot, and ms from asking for it to its release. */
  #releases: { slot: string; ms: number }[] = [];
  #polling = false;
  /** A report of its own under way (no poll carries the releases). */
  #reporting: Promise<unknown> | undefined;
  /** Grants in a row that arrived older than a slot's lifetime. */
  #staleGrants = 0;
  #closed = false;
  #sleep: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  /** `redis` is borrowed: closing the pacer leaves it open. */
  constructor(redis: Redis, rule: PacingRule, prefix: string) {
    this.#rule = rule;
    this.#keys = {
      log: `${prefix}:pacer_v2:log`,
      state: `${prefix}:pacer_v2:state`,
      waiting: `${prefix}:pacer_v2:waiting`,
      turns: `${prefix}:pacer_v2:turns`,
    };
    this.#forget = redisScript(redis, "strRelayForgetWaiting", FORGET_WAITING);
    this.#takeSlot = redisScript(redis, "strRelayTakeSlot", TAKE_SLOT);
    this.#reportReleases = redisScript(redis, "strRelayReportReleases", REPORT_RELEASES);
    this.#throttled = redisScript(redis, "strRelayThrottled", THROTTLED);
  }

  readonly slotLifetimeMs = SHARED_SLOT_LIFETIME_MS;

  get waiting(): number {
    return this.#waiters.size;
  }

  acquire(signal?: AbortSignal, options: AcquireOptions = {}): Promise<Slot> {
    const waiting = this.#waiters.wait(signal, options);
    void this.#poll();
    return waiting;
  }

  /** Every replica stops until `until` (this machine's clock, sent as a delay) and slows down after. */
  throttled(until: number): void {
    const delayMs = Math.max(0, until - Date.now());
    // Best effort: if Redis is away no slot is granted anyway.
    this.#throttled([this.#keys.state], [delayMs, SLOW_DOWN_MS]).catch(() => undefined);
    // The poll may be asleep on an older answer; ask again at once.
    this.#sleep?.wake();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sleep?.wake();
    this.#waiters.close();
    // The slots released last would otherwise hold other replicas back until their latest write.
    await this.#report();
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      while (this.#waiters.size > 0 && !this.#closed) {
        let answer: unknown;
        const asked = performance.now();
        try {
          answer = await this.#takeSlot(this.#scriptKeys(), this.#takeSlotArgs());
        } catch (error) {
          // No slot can be had: every caller waiting here gets a clear 503, none is sent unpaced.
          this.#waiters.failAll(partError("Redis", error));
          return;
        }
        const [granted, detail, slotId] = answer as [number, string, string?];
        const slot = granted === 1 ? this.#slot(slotId as string, asked) : undefined;
        if (this.#closed) return slot?.release();
        if (slot) {
          // A grant that reached this process late (it stalled, or Redis did) may be old already:
          // sent now, it would leave bunched with grants made since. It is released unused.
          if (performance.now() - asked > this.slotLifetimeMs) {
            slot.release();
            // Redis that answers this slowly every time would keep every caller waiting for good.
            if (++this.#staleGrants >= STALE_GRANTS_TO_FAIL) {
              this.#staleGrants = 0;
              this.#waiters.failAll(
                partError(
                  "Redis",
                  new Error(`its answers take over ${this.slotLifetimeMs} ms, too slow to pace sends`),
                ),
              );
            }
            continue;
          }
          this.#staleGrants = 0;
          // The caller it was asked for may have left meanwhile: the next one takes the slot.
          if (!this.#waiters.grant(slot, detail === "" ? undefined : detail)) slot.release();
          continue;
        }
        await this.#nap(Math.min(MAX_NAP_MS, Math.max(1, Math.ceil(Number(detail)))));
      }
    } finally {
      this.#polling = false;
      // Nobody waits here now: other replicas' callers need not wait for this one's registrations to lapse.
      if (this.#waiters.size === 0) this.#forget([this.#keys.waiting], [this.#replica]).catch(() => undefined);
      void this.#report();
    }
  }

  /**
   * A granted slot, released by a report with the next poll (or one of its own). Reported once: a
   * later release changes nothing (the script only moves an entry sooner), and the sender releases
   * each slot twice, at the write and when the attempt ends.
   */
  #slot(id: string, asked: number): Slot {
    let released = false;
    return {
      grantedAt: asked,
      release: () => {
        if (released) return;
        released = true;
        this.#releases.push({ slot: id, ms: Math.ceil(performance.now() - asked) });
        if (!this.#polling) void this.#report();
      },
    };
  }

  /**
   * Reports the releases no poll will carry. Best effort: if Redis is away, those slots count until
   * their latest write, which only holds sends back.
   */
  async #report(): Promise<void> {
    while (this.#reporting) await this.#reporting;
    if (this.#polling || this.#releases.length === 0) return;
    const releases = this.#releases;
    this.#releases = [];
    const args = [releases.length, ...releases.flatMap((r) => [r.slot, r.ms])];
    this.#reporting = this.#reportReleases([this.#keys.log], args)
      .catch(() => undefined)
      .finally(() => (this.#reporting = undefined));
    await this.#reporting;
    // Released while this report was under way.
    return this.#report();
  }

  #scriptKeys(): string[] {
    return [this.#keys.log, this.#keys.state, this.#keys.waiting, this.#keys.turns];
  }

  #takeSlotArgs(): (string | number)[] {
    const { limit, windowMs } = this.#rule;
    const urgent = this.#waiters.hasFirst ? 1 : 0;
    const mine = this.#waiters.callers().flatMap((w) => [w.caller, w.formula, w.bulk]);
    // Reported once: if this call fails, those slots count until their latest write.
    const releases = this.#releases;
    this.#releases = [];
    return [
      limit,
      windowMs,
      CATCH_UP,
      this.#replica,
      REGISTRATION_MS,
      urgent,
      this.slotLifetimeMs + WRITE_DEADLINE_MS,
      releases.length,
      ...releases.flatMap((r) => [r.slot, r.ms]),
      ...mine,
    ];
  }

  #nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#sleep = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#sleep = { timer, wake };
    });
  }
}
