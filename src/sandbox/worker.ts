import { parentPort, workerData } from "node:worker_threads";
import { SandboxOptionsInput } from "./options";
import { buildSandbox } from "./server";

/*
 * The relay's embedded sandbox on a thread of its own (src/relay/embedded-sandbox.ts). It says on
 * which port it listens once it does, and closes when told to.
 */

async function main(): Promise<void> {
  const sandbox = buildSandbox(workerData as SandboxOptionsInput);
  await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
  const address = sandbox.app.server.address();
  parentPort?.once("message", () => {
    void sandbox.app.close().then(() => parentPort?.close());
  });
  parentPort?.postMessage({ port: typeof address === "object" && address ? address.port : 0 });
}

main().catch((error: unknown) => {
  // The thread's 'error' event: the relay's start fails with it.
  throw error;
});
