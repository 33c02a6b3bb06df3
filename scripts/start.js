#!/usr/bin/env node
// `npm start` (after `npm run build:node`): the relay and the add-in's HTTPS dev server side by side,
// their output prefixed, then sideloading into desktop Excel where it can run (Windows, macOS) or
// instructions where it cannot. `npm run start:web -- --document <url>` (`start.js web --document
// <url>`) sideloads into that workbook in Excel on the web instead, as Microsoft's templates do.
// Ctrl-C or `npm run stop` stops both; if either dies, the other is stopped too, since the add-in is
// useless without its relay and the relay alone is `npx --no-install str-relay`.
"use strict";
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const readline = require("node:readline");
// Required rather than global: the lint config for scripts knows only a few Node globals.
const { setTimeout } = require("node:timers");

const { ROOT, MANIFEST, sessionFile, runningSession, officeAddinDebugging } = require("./dev-session");

const RELAY_MAIN = path.join(ROOT, "lib", "relay", "str-relay.js");
const DEV_SERVER_PORT = 3000;
const DEV_SERVER_WAIT_MS = 120_000;
/** How long the relay may take to finish calls in flight (its own limit is 30 s). */
const STOP_GRACE_MS = 35_000;

const say = (line) => process.stdout.write(`[start] ${line}\n`);

/** `start.js` sideloads into desktop Excel; `start.js web --document <url>` into Excel on the web. */
function readTarget(args) {
  const [platform, ...rest] = args;
  if (platform === undefined) return { platform: "desktop" };
  if (platform !== "web")
    return {
      error: `unknown argument ${JSON.stringify(platform)}: \`npm start\` takes none; \`npm run start:web -- --document <url>\` for Excel on the web.`,
    };
  const at = rest.findIndex((a) => a === "--document" || a.startsWith("--document="));
  const document =
    at < 0 ? undefined : rest[at].startsWith("--document=") ? rest[at].slice("--document=".length) : rest[at + 1];
  if (!document) {
    return {
      error: [
        "npm run start:web needs the address of a workbook in Excel on the web to sideload into:",
        '  npm run start:web -- --document "https://…"',
        "  Open or create a workbook in Excel on the web (office.com, OneDrive or SharePoint), choose Share › Copy link,",
        "  and paste that link in place of https://…. Without one, `npm start` runs the same servers and prints how to",
        "  add the add-in by hand (Home › Add-ins › More Add-ins › Upload My Add-in).",
      ].join("\n"),
    };
  }
  if (!/^https:\/\/\S+$/.test(document))
    return {
      error: `--document must be the workbook's https:// address (Share › Copy link in Excel on the web); got ${JSON.stringify(document)}.`,
    };
  return { platform: "web", document };
}

const target = readTarget(process.argv.slice(2));
if (target.error) {
  process.stderr.write(`[start] ${target.error}\n`);
  process.exit(2);
}

if (!fs.existsSync(RELAY_MAIN)) {
  say(`${path.relative(ROOT, RELAY_MAIN)} is missing: run \`npm run build:node\` first (\`npm start\` does).`);
  process.exit(1);
}

/** @type {Map<string, import("node:child_process").ChildProcess>} */
const children = new Map();
let stopping = false;
let exitCode = 0;
let sideloaded = false;

/** Copies a stream line by line with a prefix, so two servers' logs stay readable together. */
function pipeLines(stream, prefix, out) {
  readline.createInterface({ input: stream }).on("line", (line) => out.write(`${prefix} ${line}\n`));
}

/** Starts `node args…` as `name`; its lines are prefixed with `[prefix]`. */
function run(name, prefix, args) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  pipeLines(child.stdout, `[${prefix}]`, process.stdout);
  pipeLines(child.stderr, `[${prefix}]`, process.stderr);
  children.set(name, child);
  child.on("error", (error) => {
    say(`could not start the ${name}: ${error.message}`);
    children.delete(name);
    stop(1);
  });
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (!stopping) {
      say(`the ${name} exited (${signal ? `signal ${signal}` : `code ${code}`}); stopping the rest.`);
      stop(code === 0 ? 1 : (code ?? 1));
    } else if (children.size === 0) {
      finish();
    }
  });
  return child;
}

function stop(code) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  if (children.size === 0) return finish();
  for (const [name, child] of children) {
    say(`stopping the ${name}…`);
    child.kill("SIGTERM");
  }
  setTimeout(() => {
    for (const [name, child] of children) {
      say(`the ${name} did not stop in ${STOP_GRACE_MS / 1000} s; killing it.`);
      child.kill("SIGKILL");
    }
  }, STOP_GRACE_MS).unref();
}

function finish() {
  forgetSession();
  if (sideloaded) {
    // Unregisters the sideloaded add-in, so Excel does not keep loading it from a server that is gone.
    const debugging = officeAddinDebugging();
    if (debugging) spawnSync(process.execPath, [debugging, "stop", MANIFEST], { cwd: ROOT, stdio: "inherit" });
  }
  process.exit(exitCode);
}

// A terminal's Ctrl-C reaches the children too (same process group); they are told again here so
// that a signal sent to this process alone (a process manager, an IDE) stops them as well.
let interrupts = 0;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    interrupts++;
    if (interrupts === 1) {
      say(`${signal}: stopping the relay and the add-in dev server (Ctrl-C again to kill them).`);
      stop(0);
    } else {
      for (const child of children.values()) child.kill("SIGKILL");
      forgetSession();
      process.exit(130);
    }
  });
}

/** Records this process for `npm run stop`. */
function recordSession() {
  fs.writeFileSync(sessionFile(), `${process.pid}\n`);
}

function forgetSession() {
  try {
    if (fs.readFileSync(sessionFile(), "utf8").trim() === String(process.pid)) fs.unlinkSync(sessionFile());
  } catch {
    // Already gone.
  }
}

/** Desktop Excel that office-addin-debugging can sideload into: Windows, or macOS with Excel installed. */
function desktopExcel() {
  if (process.platform === "win32") return true;
  if (process.platform === "darwin") {
    return [
      "/Applications/Microsoft Excel.app",
      path.join(process.env.HOME ?? "", "Applications", "Microsoft Excel.app"),
    ].some((p) => fs.existsSync(p));
  }
  return false;
}

function waitForPort(port, deadline) {
  return new Promise((resolve) => {
    const attempt = () => {
      const socket = net.connect({ host: "localhost", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => {
        socket.destroy();
        if (stopping || Date.now() > deadline) resolve(false);
        else setTimeout(attempt, 500);
      });
    };
    attempt();
  });
}

function printSideloadHelp(reason) {
  const lines = [
    `${reason} The servers keep running; add the add-in to Excel yourself:`,
    "  Excel on the web: open a workbook, then Insert › Add-ins (Home › Add-ins › More Add-ins in newer layouts) › Upload My Add-in,",
    `    and choose ${MANIFEST}`,
    "  Desktop Excel (Windows or macOS): npx office-addin-debugging start manifest.xml",
    "  Excel must trust https://localhost:3000: run `npx office-addin-dev-certs install` once, or open",
    "    https://localhost:3000/taskpane.html in the same browser and accept its certificate.",
    "  Then open Home › Underwrite and paste the relay URL and token printed above into the pane's settings.",
    "Ctrl-C stops both servers.",
  ];
  for (const line of lines) say(line);
}

async function sideload() {
  const ready = await waitForPort(DEV_SERVER_PORT, Date.now() + DEV_SERVER_WAIT_MS);
  if (stopping) return;
  if (!ready) {
    say(
      `the dev server is not listening on port ${DEV_SERVER_PORT} after ${DEV_SERVER_WAIT_MS / 1000} s; not sideloading.`,
    );
    return;
  }
  if (target.platform === "desktop" && !desktopExcel())
    return printSideloadHelp(`No desktop Excel to sideload into on ${process.platform}.`);
  const debugging = officeAddinDebugging();
  if (!debugging) return printSideloadHelp("office-addin-debugging (an optional dependency) is not installed.");
  const where = target.platform === "web" ? "the workbook in Excel on the web" : "Excel";
  say(`sideloading manifest.xml into ${where} (office-addin-debugging start)…`);
  // --dev-server-port makes it find the dev server already running instead of starting another.
  const platformArgs = target.platform === "web" ? ["web", "--document", target.document] : ["desktop"];
  const child = spawn(
    process.execPath,
    [debugging, "start", MANIFEST, ...platformArgs, "--dev-server-port", String(DEV_SERVER_PORT)],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  pipeLines(child.stdout, "[sideload]", process.stdout);
  pipeLines(child.stderr, "[sideload]", process.stderr);
  child.on("exit", (code) => {
    if (code === 0) {
      sideloaded = true;
      say(
        `${where === "Excel" ? "Excel is starting" : "The workbook is opening"} with the add-in: open Home › Underwrite. Ctrl-C or \`npm run stop\` stops both servers and unloads it.`,
      );
    } else if (!stopping) {
      printSideloadHelp(`office-addin-debugging failed (code ${code}).`);
    }
  });
}

/** Whether something already accepts connections on `port` (another `npm start`, say). */
function portInUse(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "localhost", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

async function main() {
  const running = runningSession();
  if (running !== undefined) {
    say(`\`npm start\` already runs from this checkout (process ${running}): \`npm run stop\` stops it.`);
    process.exit(1);
  }
  // Checked first: the sideload step waits for this port, and must not mistake another server for ours.
  if (await portInUse(DEV_SERVER_PORT)) {
    say(`port ${DEV_SERVER_PORT} is already in use (another \`npm start\` or dev server?): stop it and try again.`);
    process.exit(1);
  }
  recordSession();
  run("relay", "relay", [RELAY_MAIN]);
  run("add-in dev server", "addin", [
    require.resolve("webpack-cli/bin/cli.js", { paths: [ROOT] }),
    "serve",
    "--mode",
    "development",
  ]);
  await sideload();
}

void main();
