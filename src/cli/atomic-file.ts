import fs from "node:fs";
import path from "node:path";

/*
 * Every output is written to a temporary file beside OUT and renamed over it, so a crash or a full
 * disk never leaves a half-written file where the user's was.
 */

export class OutputError extends Error {
  override readonly name = "OutputError";
}

/** Writes through a temporary file beside `out`, then renames it over `out`. */
export async function atomically(out: string, write: (temp: string) => Promise<void>): Promise<void> {
  const dir = path.dirname(path.resolve(out));
  const temp = path.join(dir, `.${path.basename(out)}.${process.pid}.str-screen.tmp`);
  try {
    await write(temp);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw new OutputError(`could not write ${out}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    fs.renameSync(temp, out);
  } catch (error) {
    // Excel on Windows locks an open workbook: keep the results under a name of their own.
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    const aside = path.join(dir, `${path.basename(out, path.extname(out))} (screened ${stamp})${path.extname(out)}`);
    let kept = temp;
    try {
      fs.renameSync(temp, aside);
      kept = aside;
    } catch {
      // The temporary file stays where it is.
    }
    const code = (error as NodeJS.ErrnoException).code;
    throw new OutputError(
      `could not replace ${out} (${code ?? String(error)}${code === "EBUSY" || code === "EPERM" || code === "EACCES" ? ": is it open in Excel? Close it and run again" : ""}); the results are in ${kept}`,
    );
  }
}
