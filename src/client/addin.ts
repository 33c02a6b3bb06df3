import { RelayConnection } from "./connection";
import { memoryStorage, officeRuntimeStorage } from "./settings";

/*
 * What the custom functions and the task pane share in the add-in's one runtime: the connection to
 * the relay, and the refresh gate. They live here because neither surface may import the other.
 *
 * functions.js and taskpane.js are separate webpack entries on one page, so each bundle has its own
 * copy of this module: module-level state would give each surface its own connection (a token saved
 * in the pane unseen by the functions until a reload) and its own gate (a pane refresh that bills
 * nothing). The one instance of each is kept on the page's global object instead.
 */

const SHARED = Symbol.for("str-underwriting.addin");

interface Shared {
  connection?: RelayConnection;
  refreshGate?: RefreshGate;
}

function shared(): Shared {
  const global = globalThis as unknown as Record<symbol, Shared | undefined>;
  return (global[SHARED] ??= {});
}

/** The add-in's connection, created on first use from OfficeRuntime.storage (memory outside Office). */
export function addinConnection(): RelayConnection {
  const state = shared();
  if (!state.connection) {
    const origin = typeof location === "undefined" ? undefined : location.origin;
    state.connection = new RelayConnection({
      storage: officeRuntimeStorage() ?? memoryStorage(),
      ...(origin ? { pageOrigin: origin } : {}),
    });
  }
  return state.connection;
}

/**
 * An explicit, billed refresh of formulas: the task pane opens the gate for the cells it is about
 * to recalculate, and every STR.* call made while it is open goes past the caches. It closes by
 * itself, so a forgotten gate can never turn ordinary recalculation into billing.
 */
export class RefreshGate {
  #openUntil = 0;
  #calls = 0;
  #freshSince: number | undefined;

  /**
   * Opens the gate for `ms` milliseconds. With `freshSince` (epoch ms) an answer fetched since then
   * satisfies the refresh, free: only what is older is bought again.
   */
  open(ms: number, now: number = Date.now(), freshSince?: number): void {
    this.#openUntil = now + ms;
    this.#calls = 0;
    this.#freshSince = freshSince;
  }

  /** The refresh's cutoff while open: answers fetched since then are not bought again. */
  get freshSince(): number | undefined {
    return this.#openUntil > 0 ? this.#freshSince : undefined;
  }

  close(): void {
    this.#openUntil = 0;
    this.#freshSince = undefined;
  }

  /** True while open; counts the calls it let through. */
  admits(now: number = Date.now()): boolean {
    if (now >= this.#openUntil) return false;
    this.#calls++;
    return true;
  }

  /** Calls let through since it was last opened. */
  get calls(): number {
    return this.#calls;
  }
}

export const refreshGate: RefreshGate = (shared().refreshGate ??= new RefreshGate());
