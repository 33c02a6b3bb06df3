import type BetterSqlite3 from "better-sqlite3";

/*
 * The SQLite driver for the Node that runs the relay, loaded by name:
 * - better-sqlite3 13 (Node-API, built for every platform in its package) on Node 22 and later;
 * - better-sqlite3 12 on Node 20, which 13 does not run on (it crashes as it loads), installed as
 *   the optional dependency `better-sqlite3-node20`.
 * 12 must not run on Node 24: there a statement freed by the garbage collector can abort the whole
 * process ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook), as the relay did
 * under bench:relay's load; 13 no longer goes through the code that asserts.
 */

/** The driver's package name for this Node: the checkpoint worker loads the same one. */
export const SQLITE_DRIVER =
  Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3" : "better-sqlite3-node20";

/** The driver's Database class; a clear error when this Node's driver is not installed. */
export function sqliteDriver(): typeof BetterSqlite3 {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(SQLITE_DRIVER) as typeof BetterSqlite3;
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    const instead = SQLITE_DRIVER === "better-sqlite3" ? "" : ", or run the relay on Node 22 or later";
    throw new Error(
      `the SQLite store needs ${SQLITE_DRIVER} on Node ${process.versions.node}, and it could not be loaded (${why}): run npm install${instead}`,
    );
  }
}
