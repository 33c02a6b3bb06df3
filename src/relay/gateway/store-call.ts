import { RelayError } from "../relay-errors";

/** Runs a store call; a store that fails answers 503 and nothing is sent. */
export type StoreCall = <T>(fn: () => Promise<T>) => Promise<T>;

export function storeCaller(redact: (text: string) => string): StoreCall {
  return async (fn) => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof RelayError) throw error;
      const reason = redact(error instanceof Error ? error.message : String(error));
      throw new RelayError("STR_STORE_UNAVAILABLE", `The relay's store is unavailable (${reason}); nothing was sent.`, {
        cause: error,
      });
    }
  };
}
