#!/usr/bin/env node
// `npm run stop`: stops the `npm start` or `npm run start:web` running from this checkout, which
// stops the relay and the dev server and unregisters the add-in it sideloaded (scripts/start.js).
// With none running, it unregisters a sideloaded add-in left behind by a session that was killed.
"use strict";
const { spawnSync } = require("node:child_process");
const { setTimeout: sleep } = require("node:timers/promises");
const { ROOT, MANIFEST, runningSession, officeAddinDebugging } = require("./dev-session");

/** A little longer than start.js gives the relay to finish calls in flight. */
const WAIT_MS = 40_000;

const say = (line) => process.stdout.write(`[stop] ${line}\n`);

async function main() {
  const pid = runningSession();
  if (pid !== undefined) {
    say(`stopping \`npm start\` (process ${pid}): the relay finishes calls in flight first…`);
    process.kill(pid, "SIGTERM");
    const deadline = Date.now() + WAIT_MS;
    while (runningSession() === pid && Date.now() < deadline) await sleep(200);
    if (runningSession() === pid) {
      say(`process ${pid} is still running after ${WAIT_MS / 1000} s; press Ctrl-C twice in its terminal to kill it.`);
      return 1;
    }
    say("stopped.");
    return 0;
  }
  const debugging = officeAddinDebugging();
  if (!debugging) {
    say("nothing to stop: no `npm start` runs from this checkout.");
    return 0;
  }
  say("no `npm start` runs from this checkout; unregistering any sideloaded add-in (office-addin-debugging stop)…");
  return spawnSync(process.execPath, [debugging, "stop", MANIFEST], { cwd: ROOT, stdio: "inherit" }).status ?? 1;
}

main().then((code) => process.exit(code));
