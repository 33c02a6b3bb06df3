import { Worker } from "node:worker_threads";
import { SQLITE_DRIVER } from "./sqlite-driver";

/*
 * Checkpoints the SQLite store's write-ahead log from a worker thread, so the relay's own thread
 * never does.
 *
 * SQLite copies the log back into the database (a checkpoint, with an fsync) whenever a commit
 * leaves it past 1,000 pages, inside that commit: at the service's full rate, some store calls of
 * a paced batch held the relay's event loop for their checkpoint. With its own connection on its
 * own thread the checkpointer copies and syncs while the relay goes on: a PASSIVE checkpoint waits
 * for no one and blocks no writer.
 *
 * The worker is code in a string, not a module file: it runs the same from lib/ and from the
 * TypeScript sources under the tests.
 */

/**
 * The worker: a passive checkpoint every interval. When a large log has been copied whole and nothing
 * was written for an interval (a bulk run is over), it also empties the file (TRUNCATE, only if no one
 * is writing): else the relay's next commit, which starts the log again, cuts it down to
 * journal_size_limit on the relay's thread, a stall of tens of milliseconds. During a run it does not:
 * emptying blocks writers while it lasts. Told to stop, it copies the rest and empties the log, so the
 * store's own connection, closing next on the relay's thread, has nothing left to copy or remove.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { fileMustExist: true });
// Never wait for a writer: a checkpoint that cannot run now runs at the next interval.
db.pragma("busy_timeout = 0");
// The log's length when the last checkpoint copied it whole: the same again means nothing was written since.
let copiedWhole = -1;
const checkpoint = () => {
  const [done] = db.pragma("wal_checkpoint(PASSIVE)");
  const whole = done.busy === 0 && done.checkpointed === done.log;
  if (whole && done.log >= workerData.largeLogFrames && done.log === copiedWhole) db.pragma("wal_checkpoint(TRUNCATE)");
  copiedWhole = whole ? done.log : -1;
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  // Ends the thread now, rather than when its event loop has wound down, which the store's close waited for.
  process.exit(0);
});
`;

export interface CheckpointerOptions {
  /** The database file (its -wal file beside it). */
  file: string;
  /** How often to checkpoint, ms: the log grows fast at the service's full rate. */
  intervalMs?: number;
  /**
   * Called once if the worker fails (it could not open the file, a checkpoint threw): the store then
   * goes back to checkpointing in its own commits, so the log cannot grow without bound.
   */
  onFailure: (error: Error) => void;
}

export class Checkpointer {
  readonly #worker: Worker;
  #stopping = false;
  #failed = false;

  constructor(options: CheckpointerOptions) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: options.file,
        intervalMs: options.intervalMs ?? 1000,
        // About 4 MB of 4-kB pages: a smaller log is cut in a moment.
        largeLogFrames: 1000,
        sqliteModule: require.resolve(SQLITE_DRIVER),
      },
    });
    // Not a reason to keep the process alive: the store's close() stops it.
    this.#worker.unref();
    const fail = (error: Error) => {
      if (this.#stopping || this.#failed) return;
      this.#failed = true;
      options.onFailure(error);
    };
    this.#worker.on("error", fail);
    this.#worker.on("exit", (code) => fail(new Error(`the checkpoint worker exited with code ${code}`)));
  }

  /** Runs a last checkpoint, which empties the log, and ends the worker. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    if (this.#failed) return;
    const exited = new Promise<void>((resolve) => this.#worker.once("exit", () => resolve()));
    this.#worker.postMessage("stop");
    // A worker that does not finish its last checkpoint in time is ended: the log stays, and the
    // next open of the file (or the next checkpoint) takes it in.
    const timer = setTimeout(() => void this.#worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
