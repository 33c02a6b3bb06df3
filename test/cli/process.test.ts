import { ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { MESSY_CSV, readWorkbook, rowValues, sheet, summaryOf, tempDir } from "./support";

/** `node lib/cli/str-screen.js` as a separate process: exit codes, and Ctrl-C in the middle of a run. */
const ROOT = path.join(__dirname, "..", "..");
const MAIN = path.join(ROOT, "lib", "cli", "str-screen.js");

/** Builds lib/ when it is missing or older than a source file (npm test builds it first anyway). */
function ensureBuilt(): void {
  const newest = (dir: string): number =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .reduce(
        (m, e) =>
          Math.max(m, e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs),
        0,
      );
  if (fs.existsSync(MAIN) && fs.statSync(MAIN).mtimeMs >= newest(path.join(ROOT, "src"))) return;
  try {
    execFileSync(
      process.execPath,
      [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", path.join(ROOT, "tsconfig.node.json")],
      { cwd: ROOT, stdio: "pipe" },
    );
  } catch (error) {
    // tsc still emits when another part of src has a type error; only a missing CLI is fatal here.
    if (!fs.existsSync(MAIN)) throw error;
  }
}

interface Child {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    // A clean environment: the developer's relay settings must not leak into the test.
    env: { PATH: process.env.PATH ?? "", SANDBOX_TIME_SCALE: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves once the process's stderr matches `pattern`; rejects if it exits first. */
function stderrMatches(c: Child, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(c.stderr())) return;
      c.child.stderr?.off("data", check);
      resolve();
    };
    c.child.stderr?.on("data", check);
    void c.exit.then((code) => reject(new Error(`exited ${code} before ${pattern}:\n${c.stderr()}`)));
  });
}

describe("the str-screen process", () => {
  const dir = tempDir();
  const data = path.join(dir, "data");

  beforeAll(() => ensureBuilt(), 120_000);

  test("exits 0 when every row is screened", async () => {
    const csv = path.join(dir, "clean.csv");
    fs.writeFileSync(
      csv,
      'Address,Price,Beds,Baths,Guests\n"12 Main St, Austin TX",415000,3,2,8\n"200 Broadway, Nashville TN",$389k,2,1,4\n',
    );
    const c = start([csv, "--out", path.join(dir, "clean.xlsx")], { RELAY_DATA_DIR: data });
    expect(await c.exit).toBe(0);
    expect(c.stdout()).toContain("Done: 2 of 2 rows screened");
  });

  test("exits 1 when some rows failed, and 2 on a usage error", async () => {
    const messy = start([MESSY_CSV, "--out", path.join(dir, "messy.xlsx")], { RELAY_DATA_DIR: data });
    expect(await messy.exit).toBe(1);
    const usage = start([MESSY_CSV, "--out", path.join(dir, "x.xlsx"), "--strategy", "flip"], { RELAY_DATA_DIR: data });
    expect(await usage.exit).toBe(2);
    expect(usage.stderr()).toContain('--strategy must be one of buy, arb, owned, cohost; got "flip"');
  });

  test("Ctrl-C stops sending, writes what is done, and exits 1", async () => {
    const csv = path.join(dir, "big.csv");
    const rows = Array.from({ length: 40 }, (_, i) => `"${100 + i} Oak St, Austin TX",${300000 + i * 1000},3,2,6`);
    fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n${rows.join("\n")}\n`);
    const out = path.join(dir, "big.xlsx");
    // Four requests a second and reports of about a second: 40 rows take some 10 s.
    const env = { RELAY_DATA_DIR: path.join(dir, "slow"), SANDBOX_TIME_SCALE: "0.05", RELAY_UPSTREAM_RPS: "4" };
    const c = start([csv, "--out", out], env);
    await stderrMatches(c, /progress [1-9]\d*\/40/);
    c.child.kill("SIGINT");
    expect(await c.exit).toBe(1);
    expect(c.stderr()).toMatch(/SIGINT: stopping — no more rows are sent/);
    expect(c.stdout()).toMatch(/^Stopped: \d+ of 40 rows screened/);

    const book = await readWorkbook(out);
    const summary = summaryOf(book);
    expect(summary["Stopped early"]).toMatch(/^Yes/);
    const done = summary.Done as number;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(40);
    expect(summary["Not reached (of the failed)"]).toBe(40 - done);
    const ws = sheet(book, "Screening");
    const statuses = Array.from({ length: 40 }, (_, i) => rowValues(ws, i + 2)[5]);
    expect(statuses.filter((s) => s === "Created")).toHaveLength(done);
    expect(statuses.filter((s) => s === "Stopped")).toHaveLength(40 - done);

    // What was sent before the stop is in the cache; what was not, was never sent.
    const dry = start([csv, "--dry-run"], env);
    await dry.exit;
    const cached = Number(/Cached\s+(\d+)/.exec(dry.stdout())?.[1]);
    const toCreate = Number(/To create\s+(\d+)/.exec(dry.stdout())?.[1]);
    expect(cached).toBeGreaterThanOrEqual(done);
    expect(toCreate).toBeGreaterThan(0);
    expect(cached + toCreate).toBe(40);
  }, 60_000);

  test("a second Ctrl-C (or SIGTERM) quits at once and leaves no temporary file beside OUT", async () => {
    const csv = path.join(dir, "quit.csv");
    const rows = Array.from({ length: 40 }, (_, i) => `"${300 + i} Elm St, Austin TX",${300000 + i * 1000},3,2,6`);
    fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n${rows.join("\n")}\n`);
    const folder = path.join(dir, "quit-out");
    fs.mkdirSync(folder);
    const out = path.join(folder, "quit.xlsx");
    const env = { RELAY_DATA_DIR: path.join(dir, "quit"), SANDBOX_TIME_SCALE: "0.05", RELAY_UPSTREAM_RPS: "4" };
    const c = start([csv, "--out", out], env);
    await stderrMatches(c, /progress [1-9]\d*\/40/);
    // The workbook is being written while the run goes: its temporary file is there.
    expect(fs.readdirSync(folder).filter((f) => f.endsWith(".str-screen.tmp"))).toHaveLength(1);
    // Two signals back to back, of two kinds so that they cannot merge into one: the second quits at
    // once, before the stopped run could write anything.
    c.child.kill("SIGINT");
    c.child.kill("SIGTERM");
    expect(await c.exit).toBe(130);
    expect(c.stderr()).toMatch(/SIG(INT|TERM) again: quitting now; nothing more is written/);
    // The reports' folder may stay (its files are each complete); no partial workbook does.
    expect(fs.readdirSync(folder).filter((f) => f.endsWith(".xlsx") || f.endsWith(".tmp"))).toEqual([]);
  }, 60_000);
});
