import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * `npm run start:web` and `npm run stop` beside `npm start` (scripts/start.js, scripts/stop.js), as
 * Microsoft's templates have them. Each test records its session in a file of its own
 * (STR_DEV_SESSION_FILE), so a developer's running `npm start` is never touched.
 */

const ROOT = path.resolve(__dirname, "../..");
const START = path.join(ROOT, "scripts/start.js");
const STOP = path.join(ROOT, "scripts/stop.js");

function runAsync(script: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (status) => resolve({ status, stdout }));
  });
}

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-dev-session-"));
  env = { ...process.env, STR_DEV_SESSION_FILE: path.join(dir, "start.pid") };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test("package.json runs start:web and stop through these scripts, beside start", () => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(scripts.start).toBe("npm run build:node && node scripts/start.js");
  expect(scripts["start:web"]).toBe("npm run build:node && node scripts/start.js web");
  expect(scripts.stop).toBe("node scripts/stop.js");
});

describe("start:web", () => {
  test("without a workbook address it says how to get one and starts nothing", () => {
    const run = spawnSync(process.execPath, [START, "web"], { cwd: ROOT, env, encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('npm run start:web -- --document "https://…"');
    expect(run.stderr).toContain("Share › Copy link");
    expect(run.stdout).toBe("");
    expect(fs.existsSync(env.STR_DEV_SESSION_FILE as string)).toBe(false);
  });

  test.each([
    ["an address that is not https", ["--document", "http://example.com/book.xlsx"]],
    ["a flag without its value", ["--document"]],
  ])("refuses %s, naming --document", (_, args) => {
    const run = spawnSync(process.execPath, [START, "web", ...args], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--document/);
  });

  test("npm start takes no arguments: an unknown one is refused rather than ignored", () => {
    const run = spawnSync(process.execPath, [START, "desktop"], { cwd: ROOT, env, encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown argument "desktop"');
  });
});

describe("stop", () => {
  test("stops the session recorded for this checkout and waits until it has exited", async () => {
    // A stand-in for start.js's process: it takes a moment to stop, as the relay does.
    const marker = path.join(dir, "stopped");
    const session = spawn(
      process.execPath,
      [
        "-e",
        `process.on("SIGTERM", () => setTimeout(() => { require("fs").writeFileSync(${JSON.stringify(marker)}, "yes"); process.exit(0); }, 300)); setInterval(() => {}, 1000); console.log("ready");`,
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const exited = new Promise<number | null>((resolve) => session.on("exit", (code) => resolve(code)));
    // start.js records its session only once its signal handlers are in place; so does the stand-in.
    await new Promise((resolve) => session.stdout.once("data", resolve));
    fs.writeFileSync(env.STR_DEV_SESSION_FILE as string, `${session.pid}\n`);

    // Not spawnSync: this process must stay free to reap the stand-in, as npm reaps start.js.
    const run = await runAsync(STOP);
    expect(run.stdout).toContain(`stopping \`npm start\` (process ${session.pid})`);
    expect(run.stdout).toContain("stopped.");
    expect(run.status).toBe(0);
    // stop.js returned only after the process had finished stopping.
    expect(fs.readFileSync(marker, "utf8")).toBe("yes");
    expect(await exited).toBe(0);
  });

  test("a session file whose process is gone is not a running session", () => {
    fs.writeFileSync(env.STR_DEV_SESSION_FILE as string, "999999999\n");
    const run = spawnSync(process.execPath, [STOP], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
    expect(run.stdout).toContain("no `npm start` runs from this checkout");
    expect(run.stdout).not.toContain("stopping");
  });
});
