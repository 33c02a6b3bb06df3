import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { RelayConfig, loadConfig } from "../../src/relay/config";
import { Relay, RelayOptions, createRelay } from "../../src/relay/server";
import { MIN_AI_PHOTOS, placeOf, usablePhotoCount } from "../../src/sandbox/model";
import { SandboxOptionsInput } from "../../src/sandbox/sandbox-options";
import { answerOf } from "./inject";

/**
 * A real relay on its real embedded sandbox, for integration tests. Requests go through
 * `relay.app.inject()` (or a real socket when `listen` is asked); the sandbox answers over loopback.
 */
export const TEST_TOKEN = "test-token-0123456789abcdef";

export interface TestRelay {
  relay: Relay;
  dataDir: string;
  /** Every log line the relay wrote. */
  logs: string[];
  /** POST with the token; `headers` adds or overrides. */
  post(
    url: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any; text: string; headers: Record<string, unknown> }>;
  get(
    url: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any; text: string; headers: Record<string, unknown> }>;
  /** Listens on a loopback port of its own; the relay's base URL. */
  listen(): Promise<string>;
  /** What the sandbox saw and billed. */
  sandboxStats(): { arrivals: number; billedCents: number; reports: number; aiFunctions: number; duplicates: number };
  close(): Promise<void>;
}

export async function startRelay(
  env: Record<string, string> = {},
  options: { sandbox?: SandboxOptionsInput; dataDir?: string; config?: Partial<RelayConfig> } & Partial<
    Pick<RelayOptions, "retryPolicy" | "heartbeatMs" | "addinDir" | "store" | "pacer" | "serverTimeouts">
  > = {},
): Promise<TestRelay> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "str-relay-test-"));
  const config = {
    ...loadConfig({ RELAY_DATA_DIR: dataDir, RELAY_TOKENS: TEST_TOKEN, RELAY_CALLER_RPS: "100000", ...env }),
    ...options.config,
  };
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const relay = await createRelay({
    config,
    tokens: config.tokens ?? [TEST_TOKEN],
    logger: { level: config.logLevel, stream },
    sandbox: { timeScale: 0, faults: { aiFailureRate: 0, aiTimeoutRate: 0 }, ...options.sandbox },
    ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.addinDir !== undefined ? { addinDir: options.addinDir } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.pacer ? { pacer: options.pacer } : {}),
    ...(options.serverTimeouts ? { serverTimeouts: options.serverTimeouts } : {}),
  });
  const auth = { authorization: `Bearer ${TEST_TOKEN}` };
  const wrap = answerOf;
  return {
    relay,
    dataDir,
    logs,
    async post(url, body, headers = {}) {
      return wrap(
        await relay.app.inject({
          method: "POST",
          url,
          payload: body as object,
          headers: { ...auth, "content-type": "application/json", ...headers },
        }),
      );
    },
    async get(url, headers = {}) {
      return wrap(await relay.app.inject({ method: "GET", url, headers: { ...auth, ...headers } }));
    },
    async listen() {
      await relay.app.listen({ host: "127.0.0.1", port: 0 });
      const address = relay.app.server.address();
      return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    },
    sandboxStats() {
      const state = relay.sandbox?.state;
      if (!state) throw new Error("no embedded sandbox");
      const t = state.totals();
      return {
        arrivals: state.arrivals.length,
        billedCents: t.cents,
        reports: t.reports,
        aiFunctions: t.aiFunctions,
        duplicates: state.duplicateCreates(),
      };
    },
    close: () => relay.close(),
  };
}

export const BUY_PATH = "/v1/external/analysis/create/buy";
export const ARB_PATH = "/v1/external/analysis/create/arb";
export const OWNED_PATH = "/v1/external/analysis/create/owned";
export const COHOST_PATH = "/v1/external/analysis/create/cohost";
export const ENHANCE_PATH = "/v1/external/analysis/enhance";

export const buyBody = (n = 0) => ({
  fullAddress: `${12 + n} Main St, Austin TX`,
  purchasePriceUSD: 450000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
});

/** A buy body whose address has enough usable photos for AI comparables (or too few, with `enough` false). */
export function buyBodyWithPhotos(enough = true, from = 0) {
  for (let n = from; n < from + 1000; n++) {
    const body = buyBody(n);
    if (usablePhotoCount(placeOf(body)) >= MIN_AI_PHOTOS === enough) return body;
  }
  throw new Error("no such address in range");
}
