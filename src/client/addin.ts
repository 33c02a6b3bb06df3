import { RefreshAdmission } from "./batcher";
import { RelayConnection } from "./connection";
import { memoryStorage, officeRuntimeStorage } from "./relay-settings";

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
 * An explicit, billed refresh of formulas: the task pane opens the gate with the canonical requests
 * of the calls it priced (src/contract/canonical.ts), and the batcher asks it about each call as it
 * reads it. A priced request goes past the caches once; every other STR.* call Excel makes
 * meanwhile, anywhere in the workbook, is an ordinary one (free from the caches). The gate closes
 * once each priced request has been made, or after `maxMs` whatever happens, so a forgotten gate
 * can never turn ordinary recalculation into billing.
 */
export class RefreshGate implements RefreshAdmission {
  /** Priced requests not made yet. */
  readonly #waiting = new Set<string>();
  #admitted = 0;
  #openUntil = 0;
  #freshSince: number | undefined;

  /**
   * Opens the gate for the `priced` canonical requests, for at most `maxMs` milliseconds. With
   * `freshSince` (epoch ms) an answer fetched since then satisfies the refresh, free: only what is
   * older is bought again.
   */
  open(priced: Iterable<string>, options: { maxMs?: number; now?: number; freshSince?: number } = {}): void {
    this.#waiting.clear();
    for (const canonical of priced) this.#waiting.add(canonical);
    this.#admitted = 0;
    this.#openUntil = this.#waiting.size > 0 ? (options.now ?? Date.now()) + (options.maxMs ?? 120_000) : 0;
    this.#freshSince = options.freshSince;
  }

  close(): void {
    this.#waiting.clear();
    this.#openUntil = 0;
    this.#freshSince = undefined;
  }

  /**
   * A call's canonical request: a refresh (with the refresh's cutoff) if it is one the pane priced
   * and not made yet, else undefined (an ordinary call). The last priced request closes the gate.
   */
  admit(canonical: string, now: number = Date.now()): { freshSince: number | undefined } | undefined {
    if (now >= this.#openUntil) {
      if (this.#openUntil > 0) this.close();
      return undefined;
    }
    if (!this.#waiting.delete(canonical)) return undefined;
    this.#admitted++;
    const admitted = { freshSince: this.#freshSince };
    if (this.#waiting.size === 0) this.close();
    return admitted;
  }

  /** True while some priced request has not been made and the time limit has not passed. */
  isOpen(now: number = Date.now()): boolean {
    return now < this.#openUntil && this.#waiting.size > 0;
  }

  /** Priced requests made (each once) since the gate was last opened. */
  get admitted(): number {
    return this.#admitted;
  }

  /** Priced requests not made yet (0 once closed). */
  get waiting(): number {
    return this.#waiting.size;
  }
}

export const refreshGate: RefreshGate = (shared().refreshGate ??= new RefreshGate());
