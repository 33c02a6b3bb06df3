import "./compile-cache";
import net from "node:net";
import { ConfigError, RelayConfig, loadConfig } from "./config";
import { EVENTS } from "./ops/events";
import { plainHttpAdvice } from "./http/https-advice";
import { addinBuilt } from "./http/routes/addin";
import { createRelay } from "./server";
import { markTokenShown, resolveTokens } from "./callers/tokens";
import { RELAY_VERSION } from "./version";
import { shownUrl } from "./ops/shown-url";

/*
 * `str-relay` (`npx --no-install str-relay` in a checkout): the relay on its own. Standard output is the log, JSON lines only (events.ts), so
 * a log shipper can parse every line; the banner for a person — where it listens, its mode, its
 * budget and, on first start, the generated relay token — goes to standard error. Exit code 2 on a
 * configuration error.
 */

const HELP = `Usage: str-relay [--help] [--version]

Runs the STR relay: it holds the service's API key, paces calls at the account's limit, caches
every answer and bills each report once. Configured by environment variables only; with no
STR_API_KEY it runs on an embedded sandbox (simulated data).

Common variables (every one is in docs/configuration.md):
  STR_API_KEY                     the service's key (unset: sandbox); STR_API_BASE_URL
                                  (default https://atlas.bnbcalc.com) and STR_API_KEY_HEADER
                                  (default x-bnbcalc-api-key) name another service
  RELAY_HOST, RELAY_PORT          where to listen (default 127.0.0.1:8787; port 0: any free port)
  RELAY_PUBLIC_URL                where users reach it; the served manifest points there
  RELAY_TOKENS                    comma-separated bearer tokens, each optionally label:token
                                  (unset: one is generated and kept)
  RELAY_BUDGET_USD_PER_DAY        the daily spending cap
  RELAY_TOKEN_BUDGETS_USD_PER_DAY a labelled token's own daily cap, as label:USD,… (alice:20,bob:5)
  RELAY_TLS_CERT, RELAY_TLS_KEY   serve https directly
  RELAY_TLS_DEV_CERTS=true        serve https with office-addin-dev-certs' certificate (this computer)
  RELAY_DEPLOYMENT_NAME           names a non-production deployment: "STR Underwriting (<name>)"

Standard output is the log: JSON lines, each with an "event" name (docs/relay.md, Operating: logs).
The startup banner, with a generated token at first start, goes to standard error.

Exit codes: 0 stopped cleanly, 1 stopped on an error, 2 bad configuration.
`;

async function main(argv: string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) return void process.stdout.write(HELP);
  if (argv.includes("--version") || argv.includes("-v")) return void process.stdout.write(`${RELAY_VERSION}\n`);
  const unknown = argv.find((a) => a.startsWith("-"));
  if (unknown)
    throw new ConfigError(
      `Unknown option ${unknown}: str-relay takes only --help and --version (configure it with environment variables).`,
    );
  const config = await withBoundPort(loadConfig(process.env));
  const { tokens, generated, file, unshown } = resolveTokens(config.tokens, config.dataDir, {
    allowOtherOwner: config.dataDirAllowOtherOwner,
  });
  const relay = await createRelay({ config, tokens, logger: { level: config.logLevel } });
  await relay.app.listen({ host: config.host, port: config.port });
  const address = relay.app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const scheme = config.tls ? "https" : "http";
  const lines = [
    `STR relay ${RELAY_VERSION} listening on ${scheme}://${config.host}:${port} (public URL ${shownUrl(config.publicUrl)})`,
    config.mode === "sandbox"
      ? "Mode: SANDBOX — no STR_API_KEY is set, so answers are simulated by the embedded sandbox (not market data). Set STR_API_KEY to go live."
      : `Mode: LIVE — relaying to ${shownUrl(config.apiBaseUrl ?? "")}`,
    `Budget: ${config.budgetUSDPerDay.toFixed(2)} USD a day${config.mode === "sandbox" ? " (simulated)" : ""}; pacing: ${config.upstreamRps} requests a second; store: ${config.databaseUrl ? "Redis + Postgres" : `${config.dataDir}/relay.sqlite`}`,
    unshown
      ? `Relay token (generated${generated ? "" : " by an earlier start that did not finish"}, kept in ${file}): ${tokens[0]}\n  Paste it in the add-in's Settings, or send it as "Authorization: Bearer <token>".`
      : file
        ? `Relay token: kept in ${file}`
        : `Relay tokens: ${tokens.length} from RELAY_TOKENS`,
    // Advertised only when served: without a build, /manifest.xml answers 404.
    addinBuilt()
      ? `Add-in manifest: ${shownUrl(config.publicUrl)}/manifest.xml`
      : "Add-in manifest: none served here until the add-in is built (npm run build, then restart the relay)",
  ];
  // Marked just before the banner is written: a start stopped as soon as its banner is read still counts as shown.
  if (unshown) markTokenShown(config.dataDir, { allowOtherOwner: config.dataDirAllowOtherOwner });
  process.stderr.write(`${lines.join("\n")}\n`);
  const advice = plainHttpAdvice(config, addinBuilt());
  if (advice) process.stderr.write(`${advice}\n`);
  relay.app.log.info(
    {
      event: EVENTS.started,
      version: RELAY_VERSION,
      url: `${scheme}://${config.host}:${port}`,
      publicUrl: shownUrl(config.publicUrl),
      mode: config.mode,
      budgetUSDPerDay: config.budgetUSDPerDay,
      upstreamRps: config.upstreamRps,
      store: config.databaseUrl ? "redis+postgres" : "sqlite",
      tokens: tokens.length,
    },
    `STR relay ${RELAY_VERSION} started (${config.mode})`,
  );

  // A closed stdout or stderr (piped into `head`) must not kill the relay before it drains its calls.
  process.stdout.on("error", () => undefined);
  process.stderr.on("error", () => undefined);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: stopping (calls in flight finish first; 30 s at most)\n`);
    relay.app.log.info({ event: EVENTS.stopping, signal }, "stopping: calls in flight finish first (30 s at most)");
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

/**
 * RELAY_PORT=0 asks for any free port. The public URL (and so the manifest and the sandbox's links)
 * must name the port actually bound, so the port is chosen before the relay is built.
 */
async function withBoundPort(config: RelayConfig): Promise<RelayConfig> {
  if (config.port !== 0) return config;
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen({ host: config.host, port: 0 }, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  return loadConfig({ ...process.env, RELAY_PORT: String(port) });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `str-relay failed to start: ${error instanceof Error ? error.message : String(error)}`}\n`,
  );
  process.exit(2);
});
