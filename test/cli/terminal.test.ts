import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { readWorkbook, rowValues, sheet, tempDir } from "./support";

/*
 * str-screen in a pseudo-terminal, as a user runs it: the progress bar is drawn in place, and a row
 * held back as unusual or a Ctrl-C must never break it (they made it count past the total and throw
 * "RangeError: Invalid count value" after billing, with no workbook). `script -qec` gives the command
 * a terminal; ^C typed into it reaches the run as SIGINT, as it does for a user.
 */
const ROOT = path.join(__dirname, "..", "..");
const BIN = path.join(ROOT, "bin", "str-screen.js");

interface Terminal {
  child: ChildProcess;
  screen: () => string;
  exit: Promise<number | null>;
}

function inTerminal(args: string[], env: Record<string, string>): Terminal {
  // exec: ^C reaches str-screen alone, as it would from a shell prompt, not a wrapping sh.
  const command = "exec " + ["node", BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { PATH: process.env.PATH ?? "", TERM: "xterm", SANDBOX_TIME_SCALE: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  child.stdout?.on("data", (d: Buffer) => (screen += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, screen: () => screen, exit };
}

/** Every "done/total" the progress bar drew. */
function barCounts(screen: string): [number, number][] {
  return [...screen.matchAll(/\] (\d+)\/(\d+) ·/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

describe("str-screen in a terminal", () => {
  const dir = tempDir();
  const rows = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => `"${100 + i} Oak St, Austin TX",${i % 5 === 0 ? 900 : 300000 + i * 1000},3,2,6`,
    );

  beforeAll(() => {
    if (!fs.existsSync(path.join(ROOT, "lib", "cli", "str-screen.js"))) throw new Error("run npm run build:node first");
  });

  test("rows held back as unusual: the bar counts only the rows sent, and the run ends with its workbook", async () => {
    const csv = path.join(dir, "unusual.csv");
    fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n${rows(10).join("\n")}\n`);
    const out = path.join(dir, "unusual.xlsx");
    const t = inTerminal([csv, "--out", out], { RELAY_DATA_DIR: path.join(dir, "data") });
    expect(await t.exit).toBe(1);
    expect(t.screen()).not.toMatch(/a bug|RangeError/);
    const counts = barCounts(t.screen());
    expect(counts.length).toBeGreaterThan(0);
    for (const [done, total] of counts) {
      expect(total).toBe(8);
      expect(done).toBeLessThanOrEqual(total);
    }
    const ws = sheet(await readWorkbook(out), "Screening");
    const statuses = Array.from({ length: 10 }, (_, i) => rowValues(ws, i + 2)[5]);
    expect(statuses.filter((s) => s === "Created")).toHaveLength(8);
    expect(statuses.filter((s) => s === "Failed")).toHaveLength(2);
  }, 60_000);

  test("Ctrl-C with unusual rows: the run stops, writes its workbook and loses no row", async () => {
    const csv = path.join(dir, "stop.csv");
    fs.writeFileSync(csv, `Address,Price,Beds,Baths,Guests\n${rows(40).join("\n")}\n`);
    const out = path.join(dir, "stop.xlsx");
    // Four requests a second: 32 rows to send take some 8 s, time to type ^C after the first answers.
    const t = inTerminal([csv, "--out", out], {
      RELAY_DATA_DIR: path.join(dir, "slow"),
      SANDBOX_TIME_SCALE: "0.05",
      RELAY_UPSTREAM_RPS: "4",
    });
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!/\] [1-9]\d*\/32 ·/.test(t.screen())) return;
        t.child.stdout?.off("data", check);
        resolve();
      };
      t.child.stdout?.on("data", check);
      void t.exit.then((code) => reject(new Error(`exited ${code} before the first answer:\n${t.screen()}`)));
    });
    t.child.stdin?.write("\x03");
    expect(await t.exit).toBe(1);
    expect(t.screen()).toMatch(/stopping — no more rows are sent/);
    expect(t.screen()).not.toMatch(/a bug|RangeError/);
    for (const [done, total] of barCounts(t.screen())) expect(done).toBeLessThanOrEqual(total);
    const ws = sheet(await readWorkbook(out), "Screening");
    const statuses = Array.from({ length: 40 }, (_, i) => rowValues(ws, i + 2)[5]);
    expect(statuses.filter((s) => s === null || s === undefined)).toHaveLength(0);
    expect(statuses.filter((s) => s === "Failed")).toHaveLength(8);
  }, 60_000);
});
