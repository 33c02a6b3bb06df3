import path from "node:path";
import { RelayConfig } from "../config";
import { LocalPacer, Pacer, pacingRule } from "../pacing/pacer";
import { SqliteStore } from "./sqlite/sqlite-store";
import { RelayStore } from "./store";

/*
 * The store and pacer the configuration names: Redis + Postgres when REDIS_URL and DATABASE_URL
 * are set (replicas), else the SQLite file in RELAY_DATA_DIR with an in-process pacer. They go
 * together: replicas that shared a ledger but paced alone would pass the account's limit. The
 * replicas' modules load only when they are named: ioredis and pg are nothing to a relay on its file.
 */

export interface StoreChoice {
  store?: RelayStore | undefined;
  pacer?: Pacer | undefined;
  /** The replica's heartbeat interval; its request locks outlive it by three beats. */
  heartbeatMs: number;
  /** This replica's id, to name its connections. */
  owner: string;
}

export async function openStore(
  config: RelayConfig,
  choice: StoreChoice,
): Promise<{ store: RelayStore; pacer: Pacer }> {
  const rule = pacingRule(config.upstreamRps);
  if (choice.store) return { store: choice.store, pacer: choice.pacer ?? new LocalPacer(rule) };
  if (config.redisUrl && config.databaseUrl) {
    const [{ SharedStore }, { RedisPacer }] = await Promise.all([
      import("./shared-store"),
      import("../pacing/redis-pacer"),
    ]);
    const store = await SharedStore.open({
      redisUrl: config.redisUrl,
      databaseUrl: config.databaseUrl,
      namespace: config.storeNamespace,
      lockLeaseMs: choice.heartbeatMs * 3,
      clientName: `str-relay-${choice.owner}`,
    });
    return {
      store,
      pacer: choice.pacer ?? new RedisPacer(store.redis, rule, config.storeNamespace),
    };
  }
  return {
    store: new SqliteStore(path.join(config.dataDir, "relay.sqlite"), {
      allowOtherOwner: config.dataDirAllowOtherOwner,
    }),
    pacer: choice.pacer ?? new LocalPacer(rule),
  };
}
