import type { LockStore } from "../store/store";
import type { StoreCall } from "./store-call";

/*
 * A request's lock in the store, so that replicas send it once. Held from before the cache is read
 * again until the call has ended. While its holder waits for a send slot — however long the queue —
 * it is taken again every third of its lifetime, so it never lapses to another replica meanwhile;
 * and right before sending, the holder takes it once more (`stillHeld`): the store says, in one
 * atomic step, that no one else holds it, else nothing is sent (a replica paused past its lease).
 */

export interface LockOptions {
  owner: string;
  /** How long a take holds it, ms. */
  ttlMs: number;
  signal: AbortSignal;
  /** Called each time the lock is found held elsewhere. */
  onWaiting?: (() => void) | undefined;
}

export interface HeldLock {
  /** Keeps the lock taken until the returned function is called (a wait for a send slot). */
  keepAlive(): () => void;
  /** Takes it again now: true when it is still this replica's (a fence before sending). */
  stillHeld(): Promise<boolean>;
}

/**
 * Takes the request's lock; while another holds it, tries again when the store hears it released,
 * or after a wait that grows to a second.
 */
export async function holdLock(locks: LockStore, storeCall: StoreCall, key: string, o: LockOptions): Promise<HeldLock> {
  const take = () => storeCall(() => locks.acquire(key, o.owner, o.ttlMs));
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    const released = locks.released(key, wait);
    if (await take()) break;
    if (o.signal.aborted) throw o.signal.reason;
    o.onWaiting?.();
    await released;
  }
  return {
    keepAlive() {
      const timer = setInterval(() => void take().catch(() => undefined), Math.max(50, Math.floor(o.ttlMs / 3)));
      timer.unref();
      return () => clearInterval(timer);
    },
    stillHeld: () => take().catch(() => false),
  };
}
