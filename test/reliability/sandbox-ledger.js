// Preloaded into a sandbox process by the reliability suites (NODE_OPTIONS=--require this file,
// SANDBOX_LEDGER_LOG=<file>): every call admitted or throttled, every answer's status and every line
// of the bill is appended to the file synchronously, before the answer leaves. What the sandbox
// billed is then known exactly even after the process is killed with SIGKILL, and across restarts.
const fs = require("node:fs");
const path = require("node:path");
const { performance } = require("node:perf_hooks");

const file = process.env.SANDBOX_LEDGER_LOG;
if (file) {
  const { SandboxState, Throttle } = require(path.join(__dirname, "..", "..", "lib", "sandbox", "state.js"));
  const now = () => performance.timeOrigin + performance.now();
  const log = (entry) => fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
  log({ e: "start", pid: process.pid, at: now() });

  const admit = Throttle.prototype.admit;
  Throttle.prototype.admit = function (key, limit, at) {
    const verdict = admit.call(this, key, limit, at);
    log({ e: "arrival", at, ok: verdict.ok });
    return verdict;
  };
  const recordStatus = SandboxState.prototype.recordStatus;
  SandboxState.prototype.recordStatus = function (status) {
    log({ e: "status", at: now(), status });
    return recordStatus.call(this, status);
  };
  const bill = SandboxState.prototype.bill;
  SandboxState.prototype.bill = function (entry) {
    log({
      e: "bill",
      at: entry.at,
      op: entry.op,
      reports: entry.reports,
      aiFunctions: entry.aiFunctions,
      cents: entry.cents,
      analysisId: entry.analysisId,
      subject: entry.subject,
    });
    return bill.call(this, entry);
  };
  const reset = SandboxState.prototype.reset;
  SandboxState.prototype.reset = function () {
    log({ e: "reset", at: now() });
    return reset.call(this);
  };
}
