import path from "node:path";
import type Database from "better-sqlite3";
import { PrivateFileRules, ensurePrivateDir, ensurePrivateFile, refuseForeignFile } from "../private-files";
import { moveOlderTables } from "./sqlite-migrations";
import { sqliteDriver } from "./sqlite-driver";

/*
 * The SQLite store's file and tables. A table's name carries the version of its layout, and a name
 * is the same columns here and in the shared store's Postgres (postgres-migrations.ts): its
 * ledger_v2 and analyses_v1 are these; replicas_v2 there keeps more than replicas_v1 here. A
 * change of layout gets new tables, never a silent reinterpretation of old rows; a nullable column
 * that rows written before do without (a call's caller, a cached answer's call), added to every
 * backend's table at once, is added in place. The moves from older tables are sqlite-migrations.ts.
 */

const TABLES = `
  -- v2: the comparables apart from the rest of the envelope (cached-envelope.ts), and last, so a
  -- read that leaves them out stops before their overflow pages.
  CREATE TABLE IF NOT EXISTS cache_v2 (
    key TEXT PRIMARY KEY, op TEXT NOT NULL, envelope TEXT NOT NULL, analysis_id TEXT,
    fetched_at INTEGER NOT NULL, cost_cents INTEGER NOT NULL, call_id TEXT, comparables TEXT);
  CREATE TABLE IF NOT EXISTS analyses_v1 (
    id TEXT PRIMARY KEY, op TEXT NOT NULL, strategy TEXT, data TEXT NOT NULL, warnings TEXT NOT NULL, updated_at INTEGER NOT NULL);
  -- v2: each call carries the day it counts against, and spend_v2 keeps each day's committed
  -- spend up to date in the same transactions, so the budget check before a call reads one row
  -- rather than summing the day's ledger, which grows all day.
  CREATE TABLE IF NOT EXISTS ledger_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, cache_key TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending','billed','free','failed','unknown')),
    max_cents INTEGER NOT NULL, owner TEXT NOT NULL, started_at INTEGER NOT NULL, day INTEGER NOT NULL,
    status INTEGER, cents INTEGER NOT NULL DEFAULT 0, reports INTEGER NOT NULL DEFAULT 0,
    ai_functions INTEGER NOT NULL DEFAULT 0, analysis_id TEXT, error_code TEXT, finished_at INTEGER);
  CREATE INDEX IF NOT EXISTS ledger_v2_key ON ledger_v2 (cache_key, id);
  CREATE INDEX IF NOT EXISTS ledger_v2_started ON ledger_v2 (started_at);
  CREATE INDEX IF NOT EXISTS ledger_v2_pending ON ledger_v2 (state) WHERE state = 'pending';
  -- Billed cents plus the most of every call pending or unknown, by the day it counts against.
  CREATE TABLE IF NOT EXISTS spend_v2 (day INTEGER PRIMARY KEY, committed_cents INTEGER NOT NULL);
  -- The same for each caller (token id).
  CREATE TABLE IF NOT EXISTS caller_spend_v1 (
    day INTEGER NOT NULL, caller_id TEXT NOT NULL, committed_cents INTEGER NOT NULL, PRIMARY KEY (day, caller_id));
  CREATE TABLE IF NOT EXISTS replicas_v1 (owner TEXT PRIMARY KEY, heartbeat_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS locks_v1 (key TEXT PRIMARY KEY, owner TEXT NOT NULL, until INTEGER NOT NULL);
  -- Jobs (jobs/job-store.ts): the items as posted, and a row per item's result as it comes, so a
  -- result is written once rather than the whole job's again.
  CREATE TABLE IF NOT EXISTS jobs_v1 (
    id TEXT PRIMARY KEY, caller_id TEXT NOT NULL, items TEXT NOT NULL, options TEXT NOT NULL, total INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running','done','cancelled')), runner TEXT, lease_until INTEGER NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER);
  CREATE INDEX IF NOT EXISTS jobs_v1_running ON jobs_v1 (lease_until) WHERE status = 'running';
  CREATE INDEX IF NOT EXISTS jobs_v1_expires ON jobs_v1 (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE IF NOT EXISTS job_results_v1 (
    job_id TEXT NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (job_id, idx)) WITHOUT ROWID;
  -- Secrets the relay makes for itself (store.ts keptSecret); the file is its owner's only.
  CREATE TABLE IF NOT EXISTS secrets_v1 (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/**
 * Opens `file` (or ":memory:" for tests) readable by its owner only, in WAL mode, with the
 * current tables. Statements wait for a lock held by another process on the file rather than fail.
 */
export function openSqlite(file: string, rules: PrivateFileRules = {}): Database.Database {
  if (file !== ":memory:") {
    ensurePrivateDir(path.dirname(file), rules);
    // SQLite gives its -wal and -shm files the database file's mode, and opens them itself: a link
    // or another user's file in their place is refused before it does.
    ensurePrivateFile(file, rules);
    for (const suffix of ["-wal", "-shm", "-journal"]) refuseForeignFile(`${file}${suffix}`, rules);
  }
  const Driver = sqliteDriver();
  const db = new Driver(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  if (file !== ":memory:") {
    // Commits never checkpoint the log: the checkpointer's thread does (sqlite-checkpointer.ts).
    // A log that grew while it was busy is cut back to 64 MB when it restarts.
    db.pragma("wal_autocheckpoint = 0");
    db.pragma("journal_size_limit = 67108864");
  }
  db.exec(TABLES);
  moveOlderTables(db);
  return db;
}
