import { parentPort, workerData } from "node:worker_threads";
import { SandboxOptionsInput } from "./sandbox-options";
import { buildSandbox, listenOnLoopback } from "./sandbox-server";

/*
 * The relay's embedded sandbox on a thread of its own (src/relay/upstream/embedded-sandbox.ts). It says where
 * it listens once it does, and closes when told to.
 */

async function main(): Promise<void> {
  const sandbox = buildSandbox(workerData as SandboxOptionsInput);
  const url = await listenOnLoopback(sandbox);
  parentPort?.once("message", () => {
    // Its server closed, the thread has nothing left to do: it ends now (in a worker, process.exit
    // ends the thread alone) rather than when its event loop has wound down, which the relay's close
    // and str-screen's exit waited for.
    void sandbox.app.close().then(() => process.exit(0));
  });
  parentPort?.postMessage({ url });
}

main().catch((error: unknown) => {
  // The thread's 'error' event: the relay's start fails with it.
  throw error;
});
