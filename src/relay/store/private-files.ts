import fs from "node:fs";

/*
 * The relay's data directory and the files in it (the SQLite store with its log, the generated
 * token) hold answers that were paid for and the credential to spend more: only the user the relay
 * runs as may read them. A directory or file that already existed with wider modes is tightened;
 * one that cannot be (another user owns it) stops the start with what to do.
 *
 * Windows has no such modes (its ACLs follow the user's profile folder), so nothing is changed there.
 */

const POSIX = process.platform !== "win32";

export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (POSIX) tighten(dir, 0o700, "directory");
}

/** Creates `file` empty if it does not exist, then makes it readable and writable by its owner only. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, "a", 0o600));
  if (POSIX) tighten(file, 0o600, "file");
}

function tighten(target: string, mode: number, kind: string): void {
  const current = fs.statSync(target).mode & 0o777;
  if ((current & ~mode) === 0) return;
  try {
    fs.chmodSync(target, mode);
  } catch (error) {
    const octal = current.toString(8).padStart(3, "0");
    throw new Error(
      `The relay's ${kind} ${target} can be read by other users (mode ${octal}) and could not be made private ` +
        `(${error instanceof Error ? error.message : String(error)}): run \`chmod ${mode.toString(8)} ${target}\` as its owner, or set RELAY_DATA_DIR to a directory of your own.`,
      { cause: error },
    );
  }
}
