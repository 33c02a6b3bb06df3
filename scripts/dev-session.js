// What `npm start` / `npm run start:web` (scripts/start.js) and `npm run stop` (scripts/stop.js)
// share: where the running session records its process id, and office-addin-debugging's CLI.
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const MANIFEST = path.join(ROOT, "manifest.xml");

/**
 * One file per checkout, outside it (nothing to ignore in git); STR_DEV_SESSION_FILE overrides it
 * so the tests can run a session of their own beside a developer's.
 */
function sessionFile() {
  const checkout = crypto.createHash("sha256").update(ROOT).digest("hex").slice(0, 12);
  return process.env.STR_DEV_SESSION_FILE || path.join(os.tmpdir(), `str-underwriting-start-${checkout}.pid`);
}

/** The id of the session process recorded for this checkout, if that process still runs. */
function runningSession() {
  let pid;
  try {
    pid = Number(fs.readFileSync(sessionFile(), "utf8").trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: it runs, as another user; ESRCH: the file outlived its process.
    return error.code === "EPERM" ? pid : undefined;
  }
}

/** office-addin-debugging's CLI, or null when the optional dependency is not installed. */
function officeAddinDebugging() {
  try {
    const pkg = require.resolve("office-addin-debugging/package.json", { paths: [ROOT] });
    return path.join(path.dirname(pkg), "cli.js");
  } catch {
    return null;
  }
}

module.exports = { ROOT, MANIFEST, sessionFile, runningSession, officeAddinDebugging };
