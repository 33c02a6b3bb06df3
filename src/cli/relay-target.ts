import { randomBytes } from "node:crypto";
import path from "node:path";
import { RelayCallError, RelayClient, RelaySettings } from "../client";
import { toFieldIssues } from "../contract";
import { Relay, RelayConfig, UpstreamTarget, relayParts, shownUrl } from "../relay";
import { UsageError } from "./args";

/**
 * The relay a run goes through: the one STR_RELAY_URL and STR_RELAY_TOKEN name, or, with neither,
 * a relay of its own in this process on the embedded sandbox, listening on a loopback port with a
 * token made for the run. The CLI never holds the service's key: to go live, it talks to a relay.
 */
export interface RelayTarget {
  client: RelayClient;
  mode: "sandbox" | "live";
  /** Where the relay is, for messages and the Summary (never the token). */
  description: string;
  /** False for str-screen's own relay: its report and listing pages are gone when the run ends. */
  linksOutliveRun: boolean;
  close(): Promise<void>;
}

/**
 * The in-process sandbox relay keeps its store in this folder under RELAY_DATA_DIR (or the user's
 * data directory). Never the folder itself: the relay's cache is keyed by request, not by mode, so a
 * relay later run live on RELAY_DATA_DIR would otherwise answer from simulated analyses.
 */
export const SANDBOX_STORE_FOLDER = "str-screen-sandbox";

type Env = Record<string, string | undefined>;

const isSet = (v: string | undefined): v is string => v !== undefined && v.trim() !== "";

/**
 * The relay a run will go through, made ready while the run reads its table: the settings are
 * checked at once, and str-screen's own relay starts its sandbox's thread, which takes a moment and
 * writes nothing. The store is opened only by `open`, once the table is known good, so a run that
 * stops at a usage error leaves nothing on disk.
 */
export interface PreparedTarget {
  open(): Promise<RelayTarget>;
  /** Ends what was started, when the run stops before `open`; once `open` is called, nothing (the target's `close` ends it). */
  cancel(): Promise<void>;
}

export async function prepareRelayTarget(env: Env): Promise<PreparedTarget> {
  const url = env.STR_RELAY_URL;
  const token = env.STR_RELAY_TOKEN;
  if (isSet(url) !== isSet(token)) {
    const [given, missing] = isSet(url) ? ["STR_RELAY_URL", "STR_RELAY_TOKEN"] : ["STR_RELAY_TOKEN", "STR_RELAY_URL"];
    throw new UsageError(
      `STR_RELAY_URL and STR_RELAY_TOKEN go together: ${given} is set but ${missing} is not. Set both to screen through a relay, or neither to screen on an in-process sandbox relay.`,
    );
  }
  if (isSet(url) && isSet(token)) return { open: () => remoteRelay(url, token), cancel: async () => undefined };
  return inProcessRelay(env);
}

async function remoteRelay(url: string, token: string): Promise<RelayTarget> {
  const parsed = RelaySettings.safeParse({ relayUrl: url, token });
  if (!parsed.success) {
    const names: Record<string, string> = { relayUrl: "STR_RELAY_URL", token: "STR_RELAY_TOKEN" };
    throw new UsageError(
      toFieldIssues(parsed.error)
        .map((i) => `${names[i.path] ?? i.path} ${i.message}`)
        .join("; "),
    );
  }
  const client = new RelayClient({ baseUrl: parsed.data.relayUrl, token: parsed.data.token });
  const shown = shownUrl(parsed.data.relayUrl);
  let mode: "sandbox" | "live";
  try {
    // Usage needs the token: a wrong URL or token stops the run here, before anything is sent.
    mode = (await client.usage()).mode;
  } catch (error) {
    if (error instanceof RelayCallError) {
      const hint =
        error.code === "STR_UNAUTHORIZED" ? " (check STR_RELAY_TOKEN: the relay prints its token at first start)" : "";
      throw new UsageError(
        `the relay at ${shown} (STR_RELAY_URL) cannot be used: [${error.code}] ${error.message}${hint}`,
      );
    }
    throw error;
  }
  return { client, mode, description: `relay at ${shown}`, linksOutliveRun: true, close: async () => undefined };
}

async function inProcessRelay(env: Env): Promise<PreparedTarget> {
  if (isSet(env.STR_API_KEY)) {
    // Simulated figures where live ones were meant would be worse than no figures.
    throw new UsageError(
      "STR_API_KEY is set, but str-screen's own relay runs only on the sandbox and never holds the key: start the relay (str-relay; npx --no-install str-relay in a checkout) and set STR_RELAY_URL and STR_RELAY_TOKEN to screen live, or unset STR_API_KEY to screen on the sandbox.",
    );
  }
  // Loaded only here: a run through a remote relay starts without the relay's and the sandbox's code.
  const [{ ConfigError, loadConfig, userDataDir }, { startUpstream }, { sandboxOptionsFromEnv }] = await Promise.all([
    relayParts.config(),
    relayParts.upstreamTarget(),
    import("../sandbox/sandbox-options"),
  ]);
  const dataDir = path.resolve(
    isSet(env.RELAY_DATA_DIR) ? env.RELAY_DATA_DIR : userDataDir(env as NodeJS.ProcessEnv),
    SANDBOX_STORE_FOLDER,
  );
  const token = `rt_${randomBytes(24).toString("base64url")}`;
  let config: RelayConfig;
  try {
    config = loadConfig({
      ...env,
      // Only this process talks to it: loopback, a port of its own, SQLite, no TLS, a token made now.
      STR_API_KEY: undefined,
      STR_API_BASE_URL: undefined,
      RELAY_HOST: "127.0.0.1",
      RELAY_DATA_DIR: dataDir,
      RELAY_TOKENS: token,
      RELAY_TLS_CERT: undefined,
      RELAY_TLS_KEY: undefined,
      REDIS_URL: undefined,
      DATABASE_URL: undefined,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  // The sandbox's thread starts now, and the rest of the relay's code loads while it gets ready. In
  // an async function, a SANDBOX_* setting it cannot read is reported by `open` with the rest.
  const upstream = (async () => startUpstream(config, sandboxOptionsFromEnv(env as NodeJS.ProcessEnv)))();
  const server = relayParts.server();
  // Failures are reported by `open`, or dropped by `cancel`; not as unhandled rejections meanwhile.
  upstream.catch(() => undefined);
  server.catch(() => undefined);
  let opened = false;
  return {
    async open() {
      opened = true;
      const [started, serverModule] = await Promise.allSettled([upstream, server]);
      if (started.status === "rejected") throw cannotStart(started.reason);
      if (serverModule.status === "rejected") {
        await started.value.embedded?.close();
        throw serverModule.reason;
      }
      return openInProcess(serverModule.value.createRelay, { config, token, dataDir, upstream: started.value });
    },
    async cancel() {
      if (opened) return;
      const started = await upstream.catch(() => undefined);
      await started?.embedded?.close();
    },
  };
}

/** The in-process relay before its store is opened: its settings, token and running sandbox. */
interface StartedRelay {
  config: RelayConfig;
  token: string;
  dataDir: string;
  upstream: UpstreamTarget;
}

async function openInProcess(
  createRelay: Awaited<ReturnType<typeof relayParts.server>>["createRelay"],
  { config, token, dataDir, upstream }: StartedRelay,
): Promise<RelayTarget> {
  let relay: Relay;
  try {
    relay = await createRelay({ config, tokens: [token], logger: false, upstream, addinDir: false });
  } catch (error) {
    throw cannotStart(error);
  }
  try {
    await relay.app.listen({ host: "127.0.0.1", port: 0 });
  } catch (error) {
    await relay.close();
    throw error;
  }
  const address = relay.app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const client = new RelayClient({ baseUrl: `http://127.0.0.1:${port}`, token });
  return {
    client,
    mode: "sandbox",
    description: `in-process sandbox relay (store ${dataDir})`,
    linksOutliveRun: false,
    close: () => relay.close(),
  };
}

function cannotStart(error: unknown): UsageError {
  return new UsageError(
    `the in-process sandbox relay could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
}
