import { buildSandbox } from "./sandbox-server";
import { sandboxOptionsFromEnv } from "./sandbox-options";

/**
 * Runs the sandbox on its own (`node lib/sandbox/standalone.js`): for tests that run several relay
 * processes against one simulated service, and for trying the service's interface by hand.
 * SANDBOX_PORT (default 8788) and SANDBOX_HOST (default 127.0.0.1) say where it listens.
 */
async function main(): Promise<void> {
  const options = sandboxOptionsFromEnv(process.env);
  const port = Number(process.env.SANDBOX_PORT ?? 8788);
  const host = process.env.SANDBOX_HOST ?? "127.0.0.1";
  const sandbox = buildSandbox(options);
  await sandbox.app.listen({ port, host });
  const address = sandbox.app.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  process.stdout.write(
    `STR sandbox listening on http://${host}:${actualPort} (time scale ${options.timeScale}; simulated data, not market data)\n`,
  );
  const stop = () => void sandbox.app.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
