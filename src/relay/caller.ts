/**
 * Who is calling: the relay token's stable, non-secret id (tokens.ts `tokenId`), set by the token
 * check in guards.ts. The pacer shares the account's rate by it, the ledger books spend to it, and
 * the logs name it — never the token itself.
 */
export interface Caller {
  id: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the token check on `token` routes; undefined on public and probe routes. */
    caller: Caller | undefined;
  }
}
