import fs from "node:fs";
import path from "node:path";

/*
 * Every output is written to a temporary file beside OUT and renamed over it, so a crash or a full
 * disk never leaves a half-written file where the user's was.
 */

export class OutputError extends Error {
  override readonly name = "OutputError";
}

/**
 * The temporary file an output is written to, beside `out`: renamed over `out` once complete,
 * removed when the write fails, and removed too if the process quits first (a second Ctrl-C).
 */
export class TempBeside {
  readonly temp: string;
  readonly #dir: string;
  readonly #removeAtExit = () => {
    try {
      fs.rmSync(this.temp, { force: true });
    } catch {
      // Windows does not remove a file still open: it stays, under its hidden temporary name.
    }
  };

  constructor(readonly out: string) {
    this.#dir = path.dirname(path.resolve(out));
    this.temp = path.join(this.#dir, `.${path.basename(out)}.${process.pid}.str-screen.tmp`);
    process.once("exit", this.#removeAtExit);
  }

  /** Removes the temporary file: the output is not written. */
  discard(): void {
    process.off("exit", this.#removeAtExit);
    fs.rmSync(this.temp, { force: true });
  }

  /** The write failed: the temporary file goes, and the error says which output it was. */
  failed(error: unknown): OutputError {
    this.discard();
    return new OutputError(`could not write ${this.out}: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** Renames the complete temporary file over `out`. */
  replace(): void {
    process.off("exit", this.#removeAtExit);
    try {
      fs.renameSync(this.temp, this.out);
    } catch (error) {
      throw this.#keptAside(error);
    }
  }

  /** Excel on Windows locks an open workbook: the results are kept under a name of their own. */
  #keptAside(error: unknown): OutputError {
    const { out } = this;
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    const aside = path.join(
      this.#dir,
      `${path.basename(out, path.extname(out))} (screened ${stamp})${path.extname(out)}`,
    );
    let kept = this.temp;
    try {
      fs.renameSync(this.temp, aside);
      kept = aside;
    } catch {
      // The temporary file stays where it is.
    }
    const code = (error as NodeJS.ErrnoException).code;
    return new OutputError(
      `could not replace ${out} (${code ?? String(error)}${code === "EBUSY" || code === "EPERM" || code === "EACCES" ? ": is it open in Excel? Close it and run again" : ""}); the results are in ${kept}`,
    );
  }
}

/** Writes through a temporary file beside `out`, then renames it over `out`. */
export async function atomically(out: string, write: (temp: string) => Promise<void>): Promise<void> {
  const file = new TempBeside(out);
  try {
    await write(file.temp);
  } catch (error) {
    throw file.failed(error);
  }
  file.replace();
}
