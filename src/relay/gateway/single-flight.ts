import { RelayAnswer } from "../../contract";

/*
 * Identical requests in flight in this process are sent once: every caller that asks meanwhile
 * joins the call already running. (Across replicas the request's lock in the store does the same.)
 */

export interface Flight {
  /** Aborted when every caller left before the call was sent: nothing is sent then. */
  readonly signal: AbortSignal;
  /** Once sent, a call runs to its end even if every caller left: its answer is cached, not wasted. */
  markSent(): void;
}

interface Running {
  promise: Promise<RelayAnswer>;
  controller: AbortController;
  callers: number;
  sent: boolean;
  /** A billed refresh: a later plain request for the same key waits for it rather than reading the older answer. */
  refresh: boolean;
}

export class SingleFlight {
  readonly #running = new Map<string, Running>();

  /** True while a call for `key` runs here: `run` would join it. */
  has(key: string): boolean {
    return this.#running.has(key);
  }

  /** True while a refresh of `key` runs here. */
  refreshing(key: string): boolean {
    return this.#running.get(key)?.refresh === true;
  }

  /** Joins the call for `key` running here, or starts one with `start`. `joined` says which. */
  async run(
    key: string,
    start: (flight: Flight) => Promise<RelayAnswer>,
    options: { signal?: AbortSignal | undefined; refresh: boolean },
  ): Promise<{ answer: RelayAnswer; joined: boolean }> {
    let running = this.#running.get(key);
    const joined = running !== undefined;
    if (!running) {
      const created: Running = {
        promise: Promise.resolve() as unknown as Promise<RelayAnswer>,
        controller: new AbortController(),
        callers: 0,
        sent: false,
        refresh: options.refresh,
      };
      const flight: Flight = { signal: created.controller.signal, markSent: () => void (created.sent = true) };
      created.promise = start(flight).finally(() => this.#running.delete(key));
      this.#running.set(key, created);
      running = created;
    }
    return { answer: await join(running, options.signal), joined };
  }

  /** Waits for every call running here to end (at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#running.values()].map((f) => f.promise));
  }
}

/** The call's answer for one caller; a caller that leaves stops waiting, and the last one to leave an unsent call stops it. */
function join(running: Running, signal: AbortSignal | undefined): Promise<RelayAnswer> {
  running.callers++;
  if (!signal) return running.promise;
  return new Promise<RelayAnswer>((resolve, reject) => {
    const onAbort = () => {
      running.callers--;
      if (running.callers === 0 && !running.sent) running.controller.abort(signal.reason);
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    running.promise.then(
      (a) => {
        signal.removeEventListener("abort", onAbort);
        resolve(a);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
