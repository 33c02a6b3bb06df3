import { randomUUID } from "node:crypto";
import { RelayAnswer } from "../../contract";

/*
 * Identical requests in flight in this process are sent once: every caller that asks meanwhile
 * joins the call already running. (Across replicas the request's lock in the store does the same.)
 *
 * A call not sent yet runs only while someone waits for it: the last caller to leave stops it, so
 * nothing is sent after every asker went away (a disconnect, Ctrl-C, a cancelled job). An item a
 * batch answered as pending at its deadline stays a member as a lease (Membership.lease): until its
 * caller asks again, which hands the call over to the new asker, or until the lease runs out — a
 * caller that never asks again does not keep a queue of unsent calls alive.
 */

export interface Flight {
  /** Names this call: its answer is kept under it, and a pending line hands it to the caller to ask again with. */
  readonly callId: string;
  /** Aborted when every caller left before the call was sent: nothing is sent then. */
  readonly signal: AbortSignal;
  /** Once sent, a call runs to its end even if every caller left: its answer is kept, not wasted. */
  markSent(): void;
}

/** One caller's place in a call: what a batch holds for each of its items. */
export interface Membership {
  readonly callId: string;
  /** This caller started the call, or asked for it by name: it is the one the call is billed to. */
  readonly starter: boolean;
  /** Who holds it (a token's id): only they may cancel it. */
  readonly holder: string | undefined;
  /**
   * Keeps the place for `ms` more, no longer tied to the caller's signal: it is left when the lease
   * runs out, when another caller joins (they take the call over), or when cancelled.
   */
  lease(ms: number): void;
}

interface Member {
  holder: string | undefined;
  leave: () => void;
  leased: boolean;
}

interface Running {
  promise: Promise<RelayAnswer>;
  controller: AbortController;
  members: Set<Member>;
  sent: boolean;
  callId: string;
  /** A billed refresh: a later plain request for the same key waits for it rather than reading the older answer. */
  refresh: boolean;
}

export interface JoinOptions {
  signal?: AbortSignal | undefined;
  refresh: boolean;
  /** Who asks (a token's id). */
  holder?: string | undefined;
  /** Told of the caller's place in the call as soon as it has one. */
  onJoin?: ((membership: Membership) => void) | undefined;
  /** The call this caller asks for by name (a pending line gave it): joining it, the caller owns it as its starter did. */
  call?: string | undefined;
  /** The name a call started by this caller gets (a batch names it before it knows whether it starts one). */
  newCallId?: string | undefined;
}

export class SingleFlight {
  readonly #running = new Map<string, Running>();
  readonly #byCall = new Map<string, Running>();

  /** True while a call for `key` runs here: `run` would join it. */
  has(key: string): boolean {
    return this.#running.has(key);
  }

  /** True while a refresh of `key` runs here. */
  refreshing(key: string): boolean {
    return this.#running.get(key)?.refresh === true;
  }

  /** The call running here for `key`, if any. */
  callIdOf(key: string): string | undefined {
    return this.#running.get(key)?.callId;
  }

  /** Joins the call for `key` running here, or starts one with `start`. `joined` says which. */
  async run(
    key: string,
    start: (flight: Flight) => Promise<RelayAnswer>,
    options: JoinOptions,
  ): Promise<{ answer: RelayAnswer; joined: boolean; callId: string }> {
    let running = this.#running.get(key);
    const joined = running !== undefined;
    if (!running) {
      const created: Running = {
        promise: Promise.resolve() as unknown as Promise<RelayAnswer>,
        controller: new AbortController(),
        members: new Set(),
        sent: false,
        // A name already in use here (a client naming two calls alike) is not taken twice.
        callId: options.newCallId && !this.#byCall.has(options.newCallId) ? options.newCallId : randomUUID(),
        refresh: options.refresh,
      };
      const flight: Flight = {
        callId: created.callId,
        signal: created.controller.signal,
        markSent: () => void (created.sent = true),
      };
      this.#running.set(key, created);
      this.#byCall.set(created.callId, created);
      created.promise = start(flight).finally(() => {
        this.#running.delete(key);
        this.#byCall.delete(created.callId);
      });
      running = created;
    }
    const answer = await join(running, !joined || options.call === running.callId, options);
    return { answer, joined, callId: running.callId };
  }

  /**
   * Leaves the leased places `holder` keeps in these calls (an item's pending line named the call):
   * a caller that stops says so, and calls no one else waits for and not sent yet are not sent. How
   * many places were left.
   */
  cancel(callIds: readonly string[], holder: string | undefined): number {
    let left = 0;
    for (const id of callIds) {
      const running = this.#byCall.get(id);
      if (!running) continue;
      for (const member of [...running.members]) {
        if (member.leased && member.holder === holder) {
          member.leave();
          left++;
        }
      }
    }
    return left;
  }

  /** Waits for every call running here to end (at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#running.values()].map((f) => f.promise));
  }
}

/**
 * The call's answer for one caller. A caller that leaves stops waiting, and the last one to leave an
 * unsent call stops it. A caller joining takes over the places leased before it.
 */
function join(running: Running, starter: boolean, options: JoinOptions): Promise<RelayAnswer> {
  const { signal } = options;
  return new Promise<RelayAnswer>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const member: Member = {
      holder: options.holder,
      leased: false,
      leave: () => {
        if (!running.members.delete(member)) return;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (running.members.size === 0 && !running.sent)
          running.controller.abort(signal?.reason ?? new Error("every caller left"));
        reject(signal?.aborted ? signal.reason : new Error("left the call"));
      },
    };
    const onAbort = () => member.leave();
    // In before the leased places are left, so that the call never finds itself without a member.
    running.members.add(member);
    for (const other of [...running.members]) if (other.leased) other.leave();
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    options.onJoin?.({
      callId: running.callId,
      starter,
      holder: options.holder,
      lease(ms) {
        if (!running.members.has(member)) return;
        signal?.removeEventListener("abort", onAbort);
        member.leased = true;
        timer = setTimeout(() => member.leave(), ms);
        timer.unref();
      },
    });
    running.promise.then(
      (a) => {
        running.members.delete(member);
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(a);
      },
      (e: unknown) => {
        running.members.delete(member);
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** A flight of one asker that no one joins (a joinOnly ask, which sends nothing). */
export function unsharedFlight(signal: AbortSignal | undefined): Flight {
  return { callId: randomUUID(), signal: signal ?? new AbortController().signal, markSent: () => undefined };
}
