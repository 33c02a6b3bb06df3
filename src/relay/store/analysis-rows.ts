import { Operation } from "../../contract";
import { StoredAnalysis } from "./store";

/*
 * An analysis as both stores' analyses_v1 tables hold it, and what the relay reads of it. The columns
 * are the same in SQLite and Postgres; Postgres gives its bigint time as a string.
 */

export interface AnalysisDbRow {
  id: string;
  op: string;
  strategy: string | null;
  data: string;
  warnings: string;
  updated_at: number | string;
}

export function storedAnalysisOf(row: AnalysisDbRow): StoredAnalysis {
  return {
    id: row.id,
    op: row.op as Operation,
    strategy: (row.strategy ?? undefined) as Operation | undefined,
    data: JSON.parse(row.data) as StoredAnalysis["data"],
    warnings: JSON.parse(row.warnings) as StoredAnalysis["warnings"],
    updatedAt: Number(row.updated_at),
  };
}
