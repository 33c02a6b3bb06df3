import { Operation } from "../../contract";
import { CallState, LastCall, LedgerRow } from "./store";

/*
 * A ledger row as both stores' tables hold it, and what the relay reads of it. The columns are the
 * same in SQLite and Postgres; Postgres gives its bigint columns (ids, times) as strings.
 */

type Big = number | string;

export interface LedgerDbRow {
  id: Big;
  op: string;
  cache_key: string;
  state: CallState;
  max_cents: number;
  owner: string;
  started_at: Big;
  day: Big | null;
  status: number | null;
  cents: number;
  reports: number;
  ai_functions: number;
  analysis_id: string | null;
  error_code: string | null;
  finished_at: Big | null;
  caller_id: string | null;
  caller_label: string | null;
}

export function ledgerRowOf(r: LedgerDbRow): LedgerRow {
  return {
    id: String(r.id),
    op: r.op as Operation,
    cacheKey: r.cache_key,
    state: r.state,
    maxCents: r.max_cents,
    owner: r.owner,
    startedAt: Number(r.started_at),
    day: r.day === null ? undefined : Number(r.day),
    status: r.status ?? undefined,
    cents: r.cents,
    reports: r.reports,
    aiFunctions: r.ai_functions,
    analysisId: r.analysis_id ?? undefined,
    errorCode: r.error_code ?? undefined,
    finishedAt: r.finished_at === null ? undefined : Number(r.finished_at),
    callerId: r.caller_id ?? undefined,
    callerLabel: r.caller_label ?? undefined,
  };
}

/** The columns lastCall reads. */
export const LAST_CALL_COLUMNS = "state, op, analysis_id, finished_at, error_code";

export type LastCallDbRow = Pick<LedgerDbRow, "state" | "op" | "analysis_id" | "finished_at" | "error_code">;

export function lastCallOf(r: LastCallDbRow): LastCall {
  return {
    state: r.state,
    op: r.op as Operation,
    analysisId: r.analysis_id ?? undefined,
    finishedAt: r.finished_at === null ? undefined : Number(r.finished_at),
    errorCode: r.error_code ?? undefined,
  };
}
