import { z } from "zod";

/** The four create endpoints of the service, one per investment strategy. */
export const Strategy = z.enum(["buy", "arb", "owned", "cohost"]);
export type Strategy = z.infer<typeof Strategy>;
export const STRATEGIES = Strategy.options;

/** Everything the service can be asked to do: a create per strategy, or `enhance`. */
export const Operation = z.enum([...Strategy.options, "enhance"]);
export type Operation = z.infer<typeof Operation>;
export const OPERATIONS = Operation.options;

/** The service's path for each operation (relative to its base URL). The relay exposes the same paths. */
export const OPERATION_PATHS: Readonly<Record<Operation, string>> = {
  buy: "/v1/external/analysis/create/buy",
  arb: "/v1/external/analysis/create/arb",
  owned: "/v1/external/analysis/create/owned",
  cohost: "/v1/external/analysis/create/cohost",
  enhance: "/v1/external/analysis/enhance",
};

export function isCreate(op: Operation): op is Strategy {
  return op !== "enhance";
}

/**
 * The header the live service reads its key from: every public integration of it sends this one
 * (docs/service/observed-behaviour.md). STR_API_KEY_HEADER names another for a service that differs.
 */
export const API_KEY_HEADER = "x-bnbcalc-api-key";
/** The spec's placeholder name for it ("Placeholder form: `x-service-api-key: <API_KEY>`"). */
export const SPEC_API_KEY_HEADER = "x-service-api-key";
/**
 * Where the live service is, as its integrations call it (observed-behaviour.md): the relay's
 * default for STR_API_BASE_URL once STR_API_KEY is set.
 */
export const LIVE_API_BASE_URL = "https://atlas.bnbcalc.com";
