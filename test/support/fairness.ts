import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  BatchLine,
  Child,
  SANDBOX_KEY,
  SharedUrls,
  buyParams,
  resetSandbox,
  sandboxStats,
  startChild,
  startReplica,
} from "./scale";
import { pacingRule } from "../../src/relay/pacing/pacer";

/**
 * The fairness scenarios of issue 20, shared by test/scale/fairness.test.ts and bench/fairness.ts:
 * relays as separate processes (one on SQLite, or replicas on Redis + Postgres) in front of a
 * sandbox process that admits at most 100 requests in any 1-s window, as the service does, and
 * two callers, each with a token of its own.
 */
export const TOKEN_A = "fair-token-a-0123456789abcdef";
export const TOKEN_B = "fair-token-b-0123456789abcdef";
const TOKENS = { RELAY_TOKENS: `${TOKEN_A},${TOKEN_B}` };
export const RPS = 100;
const BUY = "/v1/external/analysis/create/buy";

/** One relay on its own SQLite store, with both tokens (and `env`). */
export function startSoloRelay(sandboxUrl: string, env: Record<string, string> = {}): Promise<Child> {
  return startChild(
    "relay/str-relay.js",
    {
      STR_API_KEY: SANDBOX_KEY,
      STR_API_BASE_URL: sandboxUrl,
      RELAY_PORT: "0",
      RELAY_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "str-fair-")),
      RELAY_CALLER_RPS: "100000",
      RELAY_BUDGET_USD_PER_DAY: "100000",
      RELAY_LOG_LEVEL: "warn",
      ...TOKENS,
      ...env,
    },
    /listening on (https?:\/\/[\d.]+:\d+)/,
  );
}

/** A replica on the shared store's `namespace`, with both tokens (and `env`). */
export function startFairReplica(
  urls: SharedUrls,
  namespace: string,
  sandboxUrl: string,
  env: Record<string, string> = {},
): Promise<Child> {
  return startReplica(urls, namespace, sandboxUrl, { ...TOKENS, RELAY_HEARTBEAT_SECONDS: "1", ...env });
}

/** Distinct, never-cached items: each run gets addresses of its own. */
export function freshItems(n: number): { strategy: "buy"; params: ReturnType<typeof buyParams> }[] {
  const tag = `Fair${randomBytes(4).toString("hex")}`;
  return Array.from({ length: n }, (_, i) => ({ strategy: "buy" as const, params: buyParams(i, tag) }));
}

/** Runs a batch as `token`; resolves with its lines and how long it took, ms. */
export async function batchAs(
  relayUrl: string,
  token: string,
  items: unknown[],
  priority?: "formula" | "bulk",
): Promise<{ lines: BatchLine[]; ms: number }> {
  const start = performance.now();
  const res = await fetch(`${relayUrl}/v1/batch`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ items, ...(priority ? { priority } : {}) }),
  });
  const text = await res.text();
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchLine);
  return { lines, ms: performance.now() - start };
}

/** One single analysis as `token`: its status and how long it took, ms. */
export async function singleAs(
  relayUrl: string,
  token: string,
  params: unknown,
): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  const res = await fetch(`${relayUrl}${BUY}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - start };
}

/**
 * While `running` runs, sends one new single analysis a second as `token` (starting `leadMs` in,
 * once the batch's calls are queued), each without waiting for the last: their statuses and times.
 */
export async function singlesWhile(
  relayUrl: string,
  token: string,
  running: Promise<unknown>,
  leadMs = 1000,
): Promise<{ status: number; ms: number }[]> {
  let done = false;
  void running.finally(() => (done = true));
  const items = freshItems(60);
  const answers: Promise<{ status: number; ms: number }>[] = [];
  await new Promise((r) => setTimeout(r, leadMs));
  for (let i = 0; !done && i < items.length; i++) {
    answers.push(singleAs(relayUrl, token, items[i]?.params));
    await new Promise((r) => setTimeout(r, 1000));
  }
  return Promise.all(answers);
}

export interface Figures {
  /** Each single analysis's time, ms. */
  waits: number[];
  statuses: number[];
  /** The batches' times, ms. */
  batchMs: number[];
  /** 429s the sandbox answered, and the most requests it saw in any 1-s window. */
  throttled: number;
  maxPerSecond: number;
}

async function measured(sandboxUrl: string, run: () => Promise<Omit<Figures, "throttled" | "maxPerSecond">>) {
  await resetSandbox(sandboxUrl);
  const figures = await run();
  const stats = await sandboxStats(sandboxUrl);
  return { ...figures, throttled: stats.statuses["429"] ?? 0, maxPerSecond: stats.maxPerSecond };
}

/** Caller A's bulk batch of `items` on `bulkUrl`; caller B's single analyses, one a second, on `singlesUrl`. */
export function singlesBesideBulk(sandboxUrl: string, bulkUrl: string, singlesUrl: string, items = 1500) {
  return measured(sandboxUrl, async () => {
    const batch = batchAs(bulkUrl, TOKEN_A, freshItems(items), "bulk");
    const singles = await singlesWhile(singlesUrl, TOKEN_B, batch);
    const { lines, ms } = await batch;
    const statuses = [...lines.map((l) => l.status), ...singles.map((s) => s.status)];
    return { waits: singles.map((s) => s.ms), statuses, batchMs: [ms] };
  });
}

/** A's formula requests (single analyses) while A's own screening of `items` runs. */
export function formulaBesideOwnScreening(sandboxUrl: string, relayUrl: string, items = 800) {
  return measured(sandboxUrl, async () => {
    const batch = batchAs(relayUrl, TOKEN_A, freshItems(items), "bulk");
    const singles = await singlesWhile(relayUrl, TOKEN_A, batch);
    const { lines, ms } = await batch;
    const statuses = [...lines.map((l) => l.status), ...singles.map((s) => s.status)];
    return { waits: singles.map((s) => s.ms), statuses, batchMs: [ms] };
  });
}

/** A's and B's bulk batches of `items` each, started together (A on `urlA`, B on `urlB`). */
export function twoBulkBatches(sandboxUrl: string, urlA: string, urlB: string, items = 600) {
  return measured(sandboxUrl, async () => {
    const [a, b] = await Promise.all([
      batchAs(urlA, TOKEN_A, freshItems(items), "bulk"),
      batchAs(urlB, TOKEN_B, freshItems(items), "bulk"),
    ]);
    return { waits: [], statuses: [...a.lines, ...b.lines].map((l) => l.status), batchMs: [a.ms, b.ms] };
  });
}

/**
 * One bulk batch of `items` alone: its time over the account's floor (items ÷ 100 a second), and over
 * the least the relay's own pacing rule allows (100 sends a window of one second plus its margin).
 */
export async function bulkAlone(sandboxUrl: string, relayUrl: string, items = 1500) {
  const figures = await measured(sandboxUrl, async () => {
    const { lines, ms } = await batchAs(relayUrl, TOKEN_A, freshItems(items), "bulk");
    return { waits: [], statuses: lines.map((l) => l.status), batchMs: [ms] };
  });
  const rule = pacingRule(RPS);
  const ms = figures.batchMs[0] as number;
  return {
    ...figures,
    overFloor: ms / ((items / RPS) * 1000),
    overPacing: ms / ((items * rule.windowMs) / rule.limit),
  };
}

/** How far apart two times are, as a share of the longer. */
export function spread(ms: number[]): number {
  return (Math.max(...ms) - Math.min(...ms)) / Math.max(...ms);
}
