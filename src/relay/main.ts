import { ConfigError, loadConfig } from "./config";
import { createRelay } from "./server";
import { resolveTokens } from "./tokens";
import { RELAY_VERSION } from "./version";

/**
 * `npx str-relay`: the relay on its own. Prints where it listens, its mode, its budget and, on
 * first start, the generated relay token. Exit code 2 on a configuration error.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const { tokens, generated, file } = resolveTokens(config.tokens, config.dataDir);
  const relay = await createRelay({ config, tokens, logger: { level: config.logLevel } });
  await relay.app.listen({ host: config.host, port: config.port });
  const address = relay.app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const scheme = config.tls ? "https" : "http";
  const lines = [
    `STR relay ${RELAY_VERSION} listening on ${scheme}://${config.host}:${port} (public URL ${config.publicUrl})`,
    config.mode === "sandbox"
      ? "Mode: SANDBOX — no STR_API_KEY is set, so answers are simulated by the embedded sandbox (not market data). Set STR_API_KEY and STR_API_BASE_URL to go live."
      : `Mode: LIVE — relaying to ${config.apiBaseUrl}`,
    `Budget: ${config.budgetUSDPerDay.toFixed(2)} USD a day${config.mode === "sandbox" ? " (simulated)" : ""}; pacing: ${config.upstreamRps} requests a second; store: ${config.databaseUrl ? "Redis + Postgres" : `${config.dataDir}/relay.sqlite`}`,
    generated
      ? `Relay token (generated, kept in ${file}): ${tokens[0]}\n  Paste it in the add-in's Settings, or send it as "Authorization: Bearer <token>".`
      : file
        ? `Relay token: kept in ${file}`
        : `Relay tokens: ${tokens.length} from RELAY_TOKENS`,
    `Add-in manifest: ${config.publicUrl}/manifest.xml`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping (calls in flight finish first; 30 s at most)\n`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    relay.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `str-relay failed to start: ${error instanceof Error ? error.message : String(error)}`}\n`);
  process.exit(2);
});
