import { PoolClient } from "pg";
import { COMMITTED_CENTS_SQL } from "../committed-spend";

/*
 * The shared store's Postgres schema, as migrations applied in order, once each, per namespace
 * (runMigrations, which postgres-db.ts calls before its first query), and the SQL fragments the
 * statements share. Tables are named for their layouts as the SQLite store's are (sqlite-schema.ts):
 * a name is the same columns in both. A migration is history: it stays as it ran, and a change
 * is the next one.
 */

/** One step of the schema. */
export interface Migration {
  version: number;
  name: string;
  /** `s` is the quoted schema identifier, `literal` the schema name as an SQL string. */
  sql: (s: string, literal: string) => string;
}

/** Advisory lock classes (the second key of pg_advisory_xact_lock; the first is the namespace's hash). */
export const LOCK_MIGRATE = 1;
export const LOCK_RESERVE = 2;

/**
 * The database's clock, in epoch ms: heartbeats and sweeps are timed by it, so replicas whose
 * clocks disagree still agree on who is alive. `now()` is the statement's (autocommit) start.
 */
export const DB_NOW_MS = "(extract(epoch FROM now()) * 1000)::bigint";

/**
 * A replica's beats are steady while each comes within one and a half intervals of the one before:
 * late by half a beat (a busy event loop, a slow statement) but none missed.
 */
export const STEADY_GAP_BEATS = 1.5;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "ledger, analyses and replicas",
    sql: (s, literal) => `
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
      -- The budget check and the pending row in one statement (see reserveCall). In a volatile
      -- plpgsql function each statement takes a fresh snapshot: the sum below, run once the lock is
      -- granted, sees every reservation committed before, so two replicas cannot both fit in the
      -- last of the budget. The lock is held only while the server works, never across a round
      -- trip to a busy relay, and ends with the transaction.
      CREATE FUNCTION ${s}.reserve_call_v1(p_op text, p_cache_key text, p_max_cents integer, p_owner text, p_started_at bigint,
          p_budget_cents bigint, p_day_start bigint, OUT reserved_id bigint, OUT committed_cents bigint)
        LANGUAGE plpgsql VOLATILE AS $fn$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(${literal}), ${LOCK_RESERVE});
          SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) INTO committed_cents FROM ${s}.ledger_v1 WHERE started_at >= p_day_start;
          IF committed_cents + p_max_cents <= p_budget_cents THEN
            INSERT INTO ${s}.ledger_v1 (op, cache_key, state, max_cents, owner, started_at)
              VALUES (p_op, p_cache_key, 'pending', p_max_cents, p_owner, p_started_at) RETURNING id INTO reserved_id;
          END IF;
        END
        $fn$;`,
  },
  {
    version: 2,
    name: "heartbeats on the database's clock, with the start of each replica's steady run",
    // Rows of replicas one version back (their own clocks, no run) are judged by the next beat.
    sql: (s) => `ALTER TABLE ${s}.replicas_v1 ADD COLUMN beating_since bigint;`,
  },
  {
    version: 3,
    name: "each call booked to its caller, and a token's own daily budget checked with the relay's",
    // In place: rows written before have no caller. reserve_call_v1 stays, for replicas one version
    // back during a rolling upgrade; both take the same lock, so neither passes a budget the other holds.
    sql: (s, literal) => `
      ALTER TABLE ${s}.ledger_v1 ADD COLUMN caller_id text, ADD COLUMN caller_label text;
      CREATE INDEX ledger_v1_caller ON ${s}.ledger_v1 (caller_id, started_at) WHERE caller_id IS NOT NULL;
      CREATE FUNCTION ${s}.reserve_call_v2(p_op text, p_cache_key text, p_max_cents integer, p_owner text, p_started_at bigint,
          p_budget_cents bigint, p_day_start bigint, p_caller_id text, p_caller_label text, p_caller_budget_cents bigint,
          OUT reserved_id bigint, OUT committed_cents bigint, OUT refused_by text)
        LANGUAGE plpgsql VOLATILE AS $fn$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(${literal}), ${LOCK_RESERVE});
          SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) INTO committed_cents FROM ${s}.ledger_v1 WHERE started_at >= p_day_start;
          IF committed_cents + p_max_cents > p_budget_cents THEN
            refused_by := 'relay';
            RETURN;
          END IF;
          IF p_caller_id IS NOT NULL AND p_caller_budget_cents IS NOT NULL THEN
            SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) INTO committed_cents FROM ${s}.ledger_v1
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
        $fn$;`,
  },
  {
    version: 4,
    name: "jobs: their items, a row per item's result, and the replica running each (a lease)",
    sql: (s) => `
      CREATE TABLE ${s}.jobs_v1 (
        id text PRIMARY KEY, caller_id text NOT NULL, items text NOT NULL, options text NOT NULL, total integer NOT NULL,
        status text NOT NULL CHECK (status IN ('running','done','cancelled')), runner text, lease_until bigint NOT NULL,
        created_at bigint NOT NULL, expires_at bigint);
      CREATE INDEX jobs_v1_running ON ${s}.jobs_v1 (lease_until) WHERE status = 'running';
      CREATE INDEX jobs_v1_expires ON ${s}.jobs_v1 (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE ${s}.job_results_v1 (
        job_id text NOT NULL REFERENCES ${s}.jobs_v1 (id) ON DELETE CASCADE, idx integer NOT NULL, body text NOT NULL,
        PRIMARY KEY (job_id, idx));`,
  },
  {
    version: 5,
    name: "secrets the relay makes for itself, shared by replicas (the key of caller ids)",
    sql: (s) => `CREATE TABLE ${s}.secrets_v1 (name text PRIMARY KEY, value text NOT NULL);`,
  },
  {
    version: 6,
    name: "the ledger and the heartbeats named for their layouts, as in the SQLite store: ledger_v2 with each call's day",
    sql: (s, literal) => `${renameToV2(s)}${reserveCallV3(s, literal)}`,
  },
];

/**
 * In place, rows and sequence kept: ledger_v1 gains the day each call counts against (none in the
 * rows written before, which the sums by start time count as they did) and is the layout SQLite's
 * ledger_v2 has; replicas_v1, whose beats have carried their steady run since migration 2, is
 * replicas_v2. The old names stay as views, through which replicas one version back, and
 * reserve_call_v1 and v2, read and write the same rows during a rolling upgrade.
 */
function renameToV2(s: string): string {
  return `
    ALTER TABLE ${s}.ledger_v1 RENAME TO ledger_v2;
    ALTER TABLE ${s}.ledger_v2 ADD COLUMN day bigint;
    ALTER SEQUENCE ${s}.ledger_v1_id_seq RENAME TO ledger_v2_id_seq;
    ALTER INDEX ${s}.ledger_v1_pkey RENAME TO ledger_v2_pkey;
    ALTER INDEX ${s}.ledger_v1_key RENAME TO ledger_v2_key;
    ALTER INDEX ${s}.ledger_v1_started RENAME TO ledger_v2_started;
    ALTER INDEX ${s}.ledger_v1_pending RENAME TO ledger_v2_pending;
    ALTER INDEX ${s}.ledger_v1_caller RENAME TO ledger_v2_caller;
    CREATE VIEW ${s}.ledger_v1 AS SELECT id, op, cache_key, state, max_cents, owner, started_at, status, cents, reports,
      ai_functions, analysis_id, error_code, finished_at, caller_id, caller_label FROM ${s}.ledger_v2;
    ALTER TABLE ${s}.replicas_v1 RENAME TO replicas_v2;
    ALTER INDEX ${s}.replicas_v1_pkey RENAME TO replicas_v2_pkey;
    CREATE VIEW ${s}.replicas_v1 AS SELECT owner, heartbeat_at, beating_since FROM ${s}.replicas_v2;`;
}

/** reserve_call_v2 on ledger_v2, writing each call's day; under the same lock as v1 and v2. */
function reserveCallV3(s: string, literal: string): string {
  const committed = `SELECT COALESCE(SUM(${COMMITTED_CENTS_SQL}), 0) INTO committed_cents FROM ${s}.ledger_v2`;
  return `
    CREATE FUNCTION ${s}.reserve_call_v3(p_op text, p_cache_key text, p_max_cents integer, p_owner text, p_started_at bigint,
        p_budget_cents bigint, p_day_start bigint, p_caller_id text, p_caller_label text, p_caller_budget_cents bigint,
        OUT reserved_id bigint, OUT committed_cents bigint, OUT refused_by text)
      LANGUAGE plpgsql VOLATILE AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext(${literal}), ${LOCK_RESERVE});
        ${committed} WHERE started_at >= p_day_start;
        IF committed_cents + p_max_cents > p_budget_cents THEN
          refused_by := 'relay';
          RETURN;
        END IF;
        IF p_caller_id IS NOT NULL AND p_caller_budget_cents IS NOT NULL THEN
          ${committed} WHERE caller_id = p_caller_id AND started_at >= p_day_start;
          IF committed_cents + p_max_cents > p_caller_budget_cents THEN
            refused_by := 'caller';
            RETURN;
          END IF;
        END IF;
        INSERT INTO ${s}.ledger_v2 (op, cache_key, state, max_cents, owner, started_at, day, caller_id, caller_label)
          VALUES (p_op, p_cache_key, 'pending', p_max_cents, p_owner, p_started_at, p_day_start, p_caller_id, p_caller_label)
          RETURNING id INTO reserved_id;
      END
      $fn$;`;
}

/**
 * Applies the migrations the namespace lacks, in one transaction. Replicas starting together take
 * turns under an advisory lock, which ends with the transaction. `s` is the quoted schema identifier.
 */
export async function runMigrations(client: PoolClient, schema: string, s: string): Promise<void> {
  await client.query("BEGIN");
  await client.query("SELECT pg_advisory_xact_lock(hashtext($1), $2)", [schema, LOCK_MIGRATE]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${s}.migrations`);
  const done = new Set(rows.map((r) => r.version));
  for (const m of MIGRATIONS) {
    if (done.has(m.version)) continue;
    await client.query(m.sql(s, `'${schema}'`));
    await client.query(`INSERT INTO ${s}.migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
  }
  await client.query("COMMIT");
}
