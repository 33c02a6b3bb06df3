import "../relay/compile-cache";
import { EXIT, run } from "./run-command";

/*
 * `str-screen` (`npx --no-install str-screen` in a checkout): the CLI with the process's environment and streams. Ctrl-C (or SIGTERM from a
 * scheduler) stops sending and writes what is done; a second Ctrl-C quits at once.
 */

const controller = new AbortController();
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) {
    process.stderr.write(`\n${signal} again: quitting now; nothing more is written.\n`);
    process.exit(130);
  }
  stopping = true;
  process.stderr.write(
    `\n${signal}: stopping — no more rows are sent; what is done is written. ${signal === "SIGINT" ? "Ctrl-C again to quit at once." : ""}\n`,
  );
  controller.abort();
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

run(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
}).then(
  (code) => finish(code),
  (error: unknown) => {
    process.stderr.write(
      `str-screen failed (a bug: please report it with this message): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    finish(EXIT.internal);
  },
);

function finish(code: number): void {
  process.exitCode = code;
  // Exit as soon as the output is flushed: idle keep-alive sockets to a relay must not hold the process open.
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}
