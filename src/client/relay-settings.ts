import { z } from "zod";
import { describeIssues, toFieldIssues } from "../contract";
import { RelayCallError } from "./relay-call-error";

/**
 * Where the add-in finds its relay: the relay URL and the relay token, kept in the add-in's own
 * storage (OfficeRuntime.storage, shared by the task pane and the functions). Never the service's
 * key: the add-in does not have it.
 */
export const RelaySettings = z.strictObject({
  relayUrl: z
    .string({ error: "must be the relay's URL" })
    .trim()
    .refine(
      (u) => /^https:\/\/[^\s/]+/i.test(u) || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/i.test(u),
      {
        error: "must be an https:// URL (http:// only for this computer, e.g. http://localhost:8787)",
      },
    )
    .transform((u) => u.replace(/\/+$/, "")),
  token: z
    .string({ error: "must be the relay token" })
    .trim()
    .min(16, { error: "must be the relay token the relay printed (16 or more characters)" }),
});
export type RelaySettings = z.infer<typeof RelaySettings>;

export interface SettingsStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

export const SETTINGS_KEYS = { relayUrl: "str.relayUrl", token: "str.relayToken" } as const;

/** The webpack dev server's origin: the add-in in development, with the relay beside it. */
export const DEV_ADDIN_ORIGIN = "https://localhost:3000";
export const DEV_RELAY_URL = "http://localhost:8787";

/**
 * The relay URL to assume before the user sets one: in production the relay serves the add-in, so
 * it is the page's own origin; in development it is the relay's default port on this computer.
 */
export function defaultRelayUrl(pageOrigin: string | undefined): string {
  return !pageOrigin || pageOrigin === DEV_ADDIN_ORIGIN || pageOrigin === "null" ? DEV_RELAY_URL : pageOrigin;
}

/** What is stored, with the default URL filled in; `token` undefined until the user pastes one. */
export async function loadSettings(
  storage: SettingsStorage,
  pageOrigin: string | undefined,
): Promise<{ relayUrl: string; token: string | undefined }> {
  const [url, token] = await Promise.all([
    storage.getItem(SETTINGS_KEYS.relayUrl),
    storage.getItem(SETTINGS_KEYS.token),
  ]);
  return { relayUrl: url || defaultRelayUrl(pageOrigin), token: token || undefined };
}

/** Validates and stores settings; a bad one throws STR_NOT_CONFIGURED naming the field and the rule. */
export async function saveSettings(storage: SettingsStorage, input: unknown): Promise<RelaySettings> {
  const parsed = RelaySettings.safeParse(input);
  if (!parsed.success) {
    const fields = toFieldIssues(parsed.error, ["relayUrl", "token"]);
    throw new RelayCallError("STR_NOT_CONFIGURED", describeIssues(fields), { fields });
  }
  await storage.setItem(SETTINGS_KEYS.relayUrl, parsed.data.relayUrl);
  await storage.setItem(SETTINGS_KEYS.token, parsed.data.token);
  return parsed.data;
}

/** OfficeRuntime.storage when the add-in runs in Office; undefined elsewhere (tests, a plain browser). */
export function officeRuntimeStorage(): SettingsStorage | undefined {
  const runtime = (globalThis as { OfficeRuntime?: { storage?: SettingsStorage } }).OfficeRuntime;
  return runtime?.storage;
}

/** A storage in memory: for tests, and for a page opened outside Office. */
export function memoryStorage(initial: Record<string, string> = {}): SettingsStorage {
  const data = new Map(Object.entries(initial));
  return {
    getItem: async (key) => data.get(key) ?? null,
    setItem: async (key, value) => void data.set(key, value),
    removeItem: async (key) => void data.delete(key),
  };
}
