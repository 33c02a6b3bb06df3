/*
 * The stores' tables as the relay before the store's tables were named for their layouts left them
 * (commit b7f90e2), written out here rather than taken from the migrations, so that a test opening
 * them with today's code checks a move from what was really there.
 */

/** The SQLite file: its tables, with the caller columns and call ids of the moves it had run. */
export const OLD_SQLITE_TABLES = `
  CREATE TABLE cache_v2 (
    key TEXT PRIMARY KEY, op TEXT NOT NULL, envelope TEXT NOT NULL, analysis_id TEXT,
    fetched_at INTEGER NOT NULL, cost_cents INTEGER NOT NULL, call_id TEXT, comparables TEXT);
  CREATE TABLE analyses_v1 (
    id TEXT PRIMARY KEY, op TEXT NOT NULL, strategy TEXT, data TEXT NOT NULL, warnings TEXT NOT NULL, updated_at INTEGER NOT NULL);
  CREATE TABLE ledger_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, cache_key TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending','billed','free','failed','unknown')),
    max_cents INTEGER NOT NULL, owner TEXT NOT NULL, started_at INTEGER NOT NULL, day INTEGER NOT NULL,
    status INTEGER, cents INTEGER NOT NULL DEFAULT 0, reports INTEGER NOT NULL DEFAULT 0,
    ai_functions INTEGER NOT NULL DEFAULT 0, analysis_id TEXT, error_code TEXT, finished_at INTEGER);
  CREATE INDEX ledger_v2_key ON ledger_v2 (cache_key, id);
  CREATE INDEX ledger_v2_started ON ledger_v2 (started_at);
  CREATE INDEX ledger_v2_pending ON ledger_v2 (state) WHERE state = 'pending';
  CREATE TABLE spend_v2 (day INTEGER PRIMARY KEY, committed_cents INTEGER NOT NULL);
  CREATE TABLE replicas_v1 (owner TEXT PRIMARY KEY, heartbeat_at INTEGER NOT NULL);
  CREATE TABLE locks_v1 (key TEXT PRIMARY KEY, owner TEXT NOT NULL, until INTEGER NOT NULL);
  CREATE TABLE jobs_v1 (
    id TEXT PRIMARY KEY, caller_id TEXT NOT NULL, items TEXT NOT NULL, options TEXT NOT NULL, total INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running','done','cancelled')), runner TEXT, lease_until INTEGER NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER);
  CREATE INDEX jobs_v1_running ON jobs_v1 (lease_until) WHERE status = 'running';
  CREATE INDEX jobs_v1_expires ON jobs_v1 (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE job_results_v1 (
    job_id TEXT NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (job_id, idx)) WITHOUT ROWID;
  CREATE TABLE secrets_v1 (name TEXT PRIMARY KEY, value TEXT NOT NULL);
  ALTER TABLE ledger_v2 ADD COLUMN caller_id TEXT;
  ALTER TABLE ledger_v2 ADD COLUMN caller_label TEXT;
  CREATE TABLE caller_spend_v1 (
    day INTEGER NOT NULL, caller_id TEXT NOT NULL, committed_cents INTEGER NOT NULL, PRIMARY KEY (day, caller_id));
`;

const COMMITTED =
  "CASE state WHEN 'billed' THEN cents WHEN 'pending' THEN max_cents WHEN 'unknown' THEN max_cents ELSE 0 END";

/**
 * A Postgres namespace at migration 5: `s` the quoted schema, `literal` its name as an SQL string.
 * Its two reservation functions are those replicas one version back call.
 */
export function oldPostgresSchema(s: string, literal: string): string {
  return `
    CREATE SCHEMA ${s};
    CREATE TABLE ${s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO ${s}.migrations (version, name) VALUES (1, 'ledger, analyses and replicas'),
      (2, 'heartbeats on the database''s clock, with the start of each replica''s steady run'),
      (3, 'each call booked to its caller, and a token''s own daily budget checked with the relay''s'),
      (4, 'jobs: their items, a row per item''s result, and the replica running each (a lease)'),
      (5, 'secrets the relay makes for itself, shared by replicas (the key of caller ids)');
    CREATE TABLE ${s}.analyses_v1 (
      id text PRIMARY KEY, op text NOT NULL, strategy text, data text NOT NULL, warnings text NOT NULL, updated_at bigint NOT NULL);
    CREATE TABLE ${s}.ledger_v1 (
      id bigserial PRIMARY KEY, op text NOT NULL, cache_key text NOT NULL,
      state text NOT NULL CHECK (state IN ('pending','billed','free','failed','unknown')),
      max_cents integer NOT NULL, owner text NOT NULL, started_at bigint NOT NULL,
      status integer, cents integer NOT NULL DEFAULT 0, reports integer NOT NULL DEFAULT 0,
      ai_functions integer NOT NULL DEFAULT 0, analysis_id text, error_code text, finished_at bigint);
    CREATE INDEX ledger_v1_key ON ${s}.ledger_v1 (cache_key, id);
    CREATE INDEX ledger_v1_started ON ${s}.ledger_v1 (started_at);
    CREATE INDEX ledger_v1_pending ON ${s}.ledger_v1 (owner) WHERE state = 'pending';
    CREATE TABLE ${s}.replicas_v1 (owner text PRIMARY KEY, heartbeat_at bigint NOT NULL);
    CREATE FUNCTION ${s}.reserve_call_v1(p_op text, p_cache_key text, p_max_cents integer, p_owner text, p_started_at bigint,
        p_budget_cents bigint, p_day_start bigint, OUT reserved_id bigint, OUT committed_cents bigint)
      LANGUAGE plpgsql VOLATILE AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext(${literal}), 2);
        SELECT COALESCE(SUM(${COMMITTED}), 0) INTO committed_cents FROM ${s}.ledger_v1 WHERE started_at >= p_day_start;
        IF committed_cents + p_max_cents <= p_budget_cents THEN
          INSERT INTO ${s}.ledger_v1 (op, cache_key, state, max_cents, owner, started_at)
            VALUES (p_op, p_cache_key, 'pending', p_max_cents, p_owner, p_started_at) RETURNING id INTO reserved_id;
        END IF;
      END
      $fn$;
    ALTER TABLE ${s}.replicas_v1 ADD COLUMN beating_since bigint;
    ALTER TABLE ${s}.ledger_v1 ADD COLUMN caller_id text, ADD COLUMN caller_label text;
    CREATE INDEX ledger_v1_caller ON ${s}.ledger_v1 (caller_id, started_at) WHERE caller_id IS NOT NULL;
    CREATE FUNCTION ${s}.reserve_call_v2(p_op text, p_cache_key text, p_max_cents integer, p_owner text, p_started_at bigint,
        p_budget_cents bigint, p_day_start bigint, p_caller_id text, p_caller_label text, p_caller_budget_cents bigint,
        OUT reserved_id bigint, OUT committed_cents bigint, OUT refused_by text)
      LANGUAGE plpgsql VOLATILE AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext(${literal}), 2);
        SELECT COALESCE(SUM(${COMMITTED}), 0) INTO committed_cents FROM ${s}.ledger_v1 WHERE started_at >= p_day_start;
        IF committed_cents + p_max_cents > p_budget_cents THEN
          refused_by := 'relay';
          RETURN;
        END IF;
        IF p_caller_id IS NOT NULL AND p_caller_budget_cents IS NOT NULL THEN
          SELECT COALESCE(SUM(${COMMITTED}), 0) INTO committed_cents FROM ${s}.ledger_v1
            WHERE caller_id = p_caller_id AND started_at >= p_day_start;
          IF committed_cents + p_max_cents > p_caller_budget_cents THEN
            refused_by := 'caller';
            RETURN;
          END IF;
        END IF;
        INSERT INTO ${s}.ledger_v1 (op, cache_key, state, max_cents, owner, started_at, caller_id, caller_label)
          VALUES (p_op, p_cache_key, 'pending', p_max_cents, p_owner, p_started_at, p_caller_id, p_caller_label)
          RETURNING id INTO reserved_id;
      END
      $fn$;
    CREATE TABLE ${s}.jobs_v1 (
      id text PRIMARY KEY, caller_id text NOT NULL, items text NOT NULL, options text NOT NULL, total integer NOT NULL,
      status text NOT NULL CHECK (status IN ('running','done','cancelled')), runner text, lease_until bigint NOT NULL,
      created_at bigint NOT NULL, expires_at bigint);
    CREATE INDEX jobs_v1_running ON ${s}.jobs_v1 (lease_until) WHERE status = 'running';
    CREATE INDEX jobs_v1_expires ON ${s}.jobs_v1 (expires_at) WHERE expires_at IS NOT NULL;
    CREATE TABLE ${s}.job_results_v1 (
      job_id text NOT NULL REFERENCES ${s}.jobs_v1 (id) ON DELETE CASCADE, idx integer NOT NULL, body text NOT NULL,
      PRIMARY KEY (job_id, idx));
    CREATE TABLE ${s}.secrets_v1 (name text PRIMARY KEY, value text NOT NULL);`;
}
