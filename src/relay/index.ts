/*
 * The relay's public face: what str-screen and the benchmarks use of it. The relay's
 * parts import each other directly. The heavy parts are loaders, not re-exports: str-screen through
 * a remote relay loads none of them, and its own relay starts the sandbox while the rest loads
 * (docs/architecture.md, "A start loads what it uses"). compile-cache.ts is imported on its own, first.
 */

export type { RelayConfig } from "./config";
export type { Relay } from "./server";
export type { UpstreamTarget } from "./upstream/upstream-target";
export type { LedgerRow } from "./store/store";
export type { SharedStore } from "./store/shared-store";
export type { Pacer } from "./pacing/pacer";
export type { RedisPacer } from "./pacing/redis-pacer";
export { RELAY_VERSION } from "./version";
export { shownUrl } from "./ops/shown-url";

/** The relay's parts that load on demand. */
export const relayParts = {
  config: () => import("./config"),
  upstreamTarget: () => import("./upstream/upstream-target"),
  server: () => import("./server"),
  /** The pacers alone (bench:scale), and the Redis connection the shared one runs on. */
  pacing: () => import("./pacing/pacer"),
  sharedPacing: () => import("./pacing/redis-pacer"),
  sharedClients: () => import("./store/shared-clients"),
};
