import { CallerRule } from "./token-config";
import { tokenId } from "./tokens";

/**
 * Who is calling: the relay token's stable, non-secret id (tokens.ts `tokenId`, keyed by a secret
 * the store keeps), set by the token
 * check in guards.ts, and the label the operator gave the token (RELAY_TOKENS `label:token`). The
 * pacer shares the account's rate by it, the ledger books spend to it, and the logs name it —
 * never the token itself.
 */
export interface Caller {
  id: string;
  /** Absent for a token configured without a label, and for the generated token. */
  label?: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the token check on `token` routes; undefined on public and probe routes. */
    caller: Caller | undefined;
  }
}

/** The configured callers by id: who a token is, and what it may spend a day on its own. */
export class Callers {
  readonly #rules: readonly CallerRule[];
  #byId: ReadonlyMap<string, CallerRule & { id: string }> = new Map();
  #secret: string | undefined;
  readonly #loadSecret: () => Promise<string>;
  #loading: Promise<void> | undefined;

  /**
   * `secret` keys the ids (tokens.ts tokenId): the relay keeps it in its store, replicas share it,
   * so it is read when first needed: a store away at start fails requests (503), not the start.
   */
  constructor(rules: readonly CallerRule[], secret: string | (() => Promise<string>)) {
    this.#rules = rules;
    this.#loadSecret = typeof secret === "string" ? async () => secret : secret;
    if (typeof secret === "string") this.#keyWith(secret);
  }

  /** Reads the ids' key, once; a failure is tried again by the next request. */
  ready(): Promise<void> {
    if (this.#secret !== undefined) return Promise.resolve();
    this.#loading ??= this.#loadSecret().then(
      (secret) => this.#keyWith(secret),
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  #keyWith(secret: string): void {
    this.#secret = secret;
    this.#byId = new Map(this.#rules.map((r) => [tokenId(r.token, secret), { ...r, id: tokenId(r.token, secret) }]));
  }

  /** A token's id (after `ready`). */
  idOf(token: string): string {
    if (this.#secret === undefined) throw new Error("caller ids are not keyed yet: await Callers.ready() first");
    return tokenId(token, this.#secret);
  }

  /** The caller a (checked) token stands for. */
  of(token: string): Caller {
    const id = this.idOf(token);
    const label = this.#byId.get(id)?.label;
    return label === undefined ? { id } : { id, label };
  }

  labelOf(id: string): string | undefined {
    return this.#byId.get(id)?.label;
  }

  /** The token's own daily budget in cents; undefined when only the relay's applies. */
  budgetCentsOf(id: string): number | undefined {
    const usd = this.#byId.get(id)?.budgetUSDPerDay;
    return usd === undefined ? undefined : Math.round(usd * 100);
  }

  /** Every configured caller, in the order RELAY_TOKENS lists them, by id (never the token). */
  all(): { id: string; label: string | undefined; budgetUSDPerDay: number | undefined }[] {
    return [...this.#byId.values()].map(({ id, label, budgetUSDPerDay }) => ({ id, label, budgetUSDPerDay }));
  }
}
