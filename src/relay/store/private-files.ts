import fs from "node:fs";

/*
 * The relay's data directory and the files in it (the SQLite store with its log, the generated
 * token, the caller-id secret) hold answers that were paid for and the credential to spend more:
 * only the user the relay runs as may read them. A directory or file that already existed with wider
 * modes is tightened; one that cannot be stops the start with what to do.
 *
 * Whoever owns the directory or a file in it could have planted what the relay reads (a token of
 * theirs) or links to what it would write: so a directory or file owned by another user is refused
 * (unless the operator says that is intended, as with a container's volume), and a symbolic link
 * in the directory is never followed (the relay makes none there).
 *
 * Windows has no such modes or owners (its ACLs follow the user's profile folder): nothing is checked there.
 */

const POSIX = process.platform !== "win32";
/** 0 where the platform has no such flag: opening then follows a link, which POSIX never reaches. */
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

export interface PrivateFileRules {
  /** Accept a directory or file another user owns (RELAY_DATA_DIR_ALLOW_OTHER_OWNER). */
  allowOtherOwner?: boolean | undefined;
}

export class PrivateFileError extends Error {
  override readonly name = "PrivateFileError";
}

export function ensurePrivateDir(dir: string, rules: PrivateFileRules = {}): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!POSIX) return;
  const link = fs.lstatSync(dir);
  // A link to the directory made by its own user is that user's choice; one another user made is not.
  if (link.isSymbolicLink() && link.uid !== uid()) throw plantedLink(dir, "directory");
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) throw new PrivateFileError(`The relay's data directory ${dir} is not a directory.`);
  checkOwner(dir, stat.uid, "directory", rules);
  tighten(dir, stat.mode, 0o700, "directory", (mode) => fs.chmodSync(dir, mode));
}

/** Creates `file` empty if it does not exist, then makes it readable and writable by its owner only. */
export function ensurePrivateFile(file: string, rules: PrivateFileRules = {}): void {
  fs.closeSync(openPrivate(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, rules));
}

/** The file's text, or undefined when there is none; read without following a link, owner checked. */
export function readPrivateFile(file: string, rules: PrivateFileRules = {}): string | undefined {
  let fd: number;
  try {
    fd = openPrivate(file, fs.constants.O_RDONLY, rules);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces the file's text, creating it readable by its owner only; never through a link. */
export function writePrivateFile(file: string, text: string, rules: PrivateFileRules = {}): void {
  const fd = openPrivate(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC, rules);
  try {
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Refuses a file that is there as a link or as another user's, without creating it (SQLite's own
 * -wal and -shm files, which it opens itself).
 */
export function refuseForeignFile(file: string, rules: PrivateFileRules = {}): void {
  if (!POSIX) return;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (stat.isSymbolicLink()) throw plantedLink(file, "file");
  checkOwner(file, stat.uid, "file", rules);
}

/** Opens without following a link (O_NOFOLLOW, and lstat first for a clear error), then checks and tightens what was opened. */
function openPrivate(file: string, flags: number, rules: PrivateFileRules): number {
  if (!POSIX) return fs.openSync(file, flags, 0o600);
  refuseForeignFile(file, rules);
  let fd: number;
  try {
    fd = fs.openSync(file, flags | O_NOFOLLOW, 0o600);
  } catch (error) {
    // A link made between the check and the open.
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw plantedLink(file, "file");
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new PrivateFileError(`The relay's file ${file} is not a regular file.`);
    checkOwner(file, stat.uid, "file", rules);
    tighten(file, stat.mode, 0o600, "file", (mode) => fs.fchmodSync(fd, mode));
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function uid(): number | undefined {
  return process.getuid?.();
}

function checkOwner(target: string, owner: number, kind: string, rules: PrivateFileRules): void {
  const me = uid();
  if (me === undefined || owner === me || rules.allowOtherOwner) return;
  throw new PrivateFileError(
    `The relay's ${kind} ${target} is owned by user ${owner}, not by the user the relay runs as (${me}): ` +
      "the relay keeps its token and store only where no other user could have put or changed them. " +
      "Set RELAY_DATA_DIR to a directory of your own, or set RELAY_DATA_DIR_ALLOW_OTHER_OWNER=true where another owner is intended (a container's volume).",
  );
}

function plantedLink(target: string, kind: string): PrivateFileError {
  return new PrivateFileError(
    `The relay's ${kind} ${target} is a symbolic link: the relay never follows a link in its data directory ` +
      "(one put there would have it read, write or chmod another file). Remove the link, or set RELAY_DATA_DIR to a directory of your own.",
  );
}

function tighten(target: string, current: number, mode: number, kind: string, chmod: (mode: number) => void): void {
  const bits = current & 0o777;
  if ((bits & ~mode) === 0) return;
  try {
    chmod(mode);
  } catch (error) {
    const octal = bits.toString(8).padStart(3, "0");
    throw new PrivateFileError(
      `The relay's ${kind} ${target} can be read by other users (mode ${octal}) and could not be made private ` +
        `(${error instanceof Error ? error.message : String(error)}): run \`chmod ${mode.toString(8)} ${target}\` as its owner, or set RELAY_DATA_DIR to a directory of your own.`,
      { cause: error },
    );
  }
}
