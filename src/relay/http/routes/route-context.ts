import { Callers } from "../../callers/caller";
import { RelayConfig } from "../../config";
import { EmbeddedSandbox } from "../../upstream/embedded-sandbox";
import { RelayEvents } from "../../ops/events";
import { Gateway } from "../../gateway";
import type { Jobs } from "../../batch/jobs/jobs";
import { RelayMetrics } from "../../ops/metrics";
import { RelayStore } from "../../store/store";

/** What every route plugin is given as its options: the relay's parts, built once in server.ts. */
export interface RouteContext {
  config: RelayConfig;
  gateway: Gateway;
  store: RelayStore;
  metrics: RelayMetrics;
  /** Where analyses are counted and logged (events.ts). */
  events: RelayEvents;
  /** The embedded sandbox, when the relay runs without a key. */
  sandbox: EmbeddedSandbox | undefined;
  /** The configured tokens' labels and own budgets. */
  callers?: Callers | undefined;
  /** The jobs this replica runs (POST /v1/jobs). */
  jobs?: Jobs | undefined;
  /** The built add-in to serve (default dist/ beside lib/); false for none. */
  addinDir?: string | false | undefined;
}
