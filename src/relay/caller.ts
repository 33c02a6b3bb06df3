import { CallerRule } from "./token-config";
import { tokenId } from "./tokens";

/**
 * Who is calling: the relay token's stable, non-secret id (tokens.ts `tokenId`), set by the token
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
  readonly #byId: ReadonlyMap<string, CallerRule>;

  constructor(rules: readonly CallerRule[]) {
    this.#byId = new Map(rules.map((r) => [r.id, r]));
  }

  /** The caller a (checked) token stands for. */
  of(token: string): Caller {
    const id = tokenId(token);
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

  /** Every configured caller, in the order RELAY_TOKENS lists them. */
  all(): CallerRule[] {
    return [...this.#byId.values()];
  }
}
