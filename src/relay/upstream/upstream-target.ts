import { randomBytes } from "node:crypto";
import path from "node:path";
import { API_KEY_HEADER } from "../../contract/operations";
import { SandboxOptionsInput, sandboxOptionsFromEnv } from "../../sandbox/sandbox-options";
import { RelayConfig } from "../config";
import { EmbeddedSandbox, startEmbeddedSandbox } from "./embedded-sandbox";

/*
 * Started before the relay itself (server.ts) and with little code loaded: str-screen starts its
 * sandbox's thread first, so the thread gets ready while the relay's modules load and the table is read.
 */

/** The embedded sandbox's analyses, in the relay's data directory (src/sandbox/analysis-log.ts). */
export const SANDBOX_ANALYSES_FILE = "sandbox-analyses.jsonl";

/** Where a relay's calls go, and with what key. */
export interface UpstreamTarget {
  /** The sandbox a relay without a key runs, and closes with itself. */
  embedded: EmbeddedSandbox | undefined;
  apiKey: string;
  apiBaseUrl: string;
  apiKeyHeader: string;
}

/**
 * Where calls go: the configured service, or without a key an embedded sandbox over loopback,
 * through the very same upstream code as in live mode; its public pages are served under /sandbox.
 */
export async function startUpstream(
  config: RelayConfig,
  sandboxOptions: SandboxOptionsInput | undefined,
): Promise<UpstreamTarget> {
  if (config.mode !== "sandbox") {
    const { apiKey, apiBaseUrl, apiKeyHeader } = config;
    if (!apiKey || !apiBaseUrl) throw new Error("STR_API_KEY and STR_API_BASE_URL are required in live mode");
    return { embedded: undefined, apiKey, apiBaseUrl, apiKeyHeader };
  }
  const apiKey = `sk_sandbox_${randomBytes(16).toString("hex")}`;
  const embedded = await startEmbeddedSandbox({
    ...sandboxOptionsFromEnv(process.env),
    ...sandboxOptions,
    apiKeys: [apiKey],
    publicBaseUrl: `${config.publicUrl}/sandbox`,
    // Beside the relay's store: the analyses it holds can be enhanced after a restart (a new sandbox).
    analysesFile: path.join(config.dataDir, SANDBOX_ANALYSES_FILE),
  });
  return { embedded, apiKey, apiBaseUrl: embedded.url, apiKeyHeader: API_KEY_HEADER };
}
