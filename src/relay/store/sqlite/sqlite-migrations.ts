import type Database from "better-sqlite3";
import { CacheRow, PUT_CACHED, cacheRowOf, cachedAnswerOf } from "./sqlite-cache";

/*
 * The SQLite store's moves from the layouts of earlier relay versions, run as the file opens
 * (sqlite-schema.ts), each once: a second process opening the same file waits for the first, then
 * finds nothing left to move.
 */

/** Runs every move the file needs, after the current tables were made. */
export function moveOlderTables(db: Database.Database): void {
  addCallerColumns(db);
  addCallIdColumn(db);
  moveCacheV1(db);
}

/**
 * Adds the caller columns to a ledger_v2 written before callers were recorded, in place: its rows
 * keep their meaning and are booked to no caller. Under an IMMEDIATE transaction, so a second
 * process opening the same file waits and then finds the columns there.
 */
function addCallerColumns(db: Database.Database): void {
  const missing = () =>
    !db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('ledger_v2')")
      .all()
      .some((c) => c.name === "caller_id");
  if (!missing()) return;
  db.transaction(() => {
    if (!missing()) return;
    db.exec("ALTER TABLE ledger_v2 ADD COLUMN caller_id TEXT; ALTER TABLE ledger_v2 ADD COLUMN caller_label TEXT;");
  }).immediate();
}

/**
 * The call that fetched each cached answer (CachedAnswer.callId), added to a cache_v2 made before
 * it: its old rows have none and answer as cached, as they did. Under an IMMEDIATE transaction, so a
 * second process opening the same file waits and then finds the column there.
 */
function addCallIdColumn(db: Database.Database): void {
  const missing = () =>
    !db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('cache_v2')")
      .all()
      .some((c) => c.name === "call_id");
  if (!missing()) return;
  db.transaction(() => {
    if (missing()) db.exec("ALTER TABLE cache_v2 ADD COLUMN call_id TEXT");
  }).immediate();
}

/**
 * Moves a cache_v1 table (one relay version back: comparables inside the envelope) into cache_v2,
 * once, in one transaction, then drops it: an upgraded relay answers its cached requests for free
 * at once, rather than through a send slot each and the ledger (the cache would otherwise start
 * empty). Another process opening the same file waits for the move, then finds nothing to move.
 */
function moveCacheV1(db: Database.Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cache_v1'");
  if (!exists.get()) return;
  const page = db.prepare<[number], CacheRow & { rowid: number }>(
    "SELECT rowid, key, op, envelope, analysis_id, fetched_at, cost_cents FROM cache_v1 WHERE rowid > ? ORDER BY rowid LIMIT 500",
  );
  // An entry v2 already holds was written later: it stays.
  const insert = db.prepare(PUT_CACHED + "ON CONFLICT (key) DO NOTHING");
  const move = db.transaction(() => {
    if (!exists.get()) return;
    for (let last = 0; ;) {
      const rows = page.all(last);
      if (rows.length === 0) break;
      for (const row of rows) insert.run(cacheRowOf(cachedAnswerOf(row)));
      last = (rows[rows.length - 1] as { rowid: number }).rowid;
    }
    db.exec("DROP TABLE cache_v1");
  });
  // A large cache takes a while to move: a second process waits for it rather than failing to open.
  db.pragma("busy_timeout = 600000");
  try {
    move.immediate();
  } finally {
    db.pragma("busy_timeout = 5000");
  }
}
