import { parentPort, workerData } from "node:worker_threads";
import { SandboxOptionsInput } from "./options";
import { buildSandbox, listenOnLoopback } from "./server";

/*
 * The relay's embedded sandbox on a thread of its own (src/relay/embedded-sandbox.ts). It says where
 * it listens once it does, and closes when told to.
 */

async function main(): Promise<void> {
  const sandbox = buildSandbox(workerData as SandboxOptionsInput);
  const url = await listenOnLoopback(sandbox);
  parentPort?.once("message", () => {
    void sandbox.app.close().then(() => parentPort?.close());
  });
  parentPort?.postMessage({ url });
}

main().catch((error: unknown) => {
  // The thread's 'error' event: the relay's start fails with it.
  throw error;
});
