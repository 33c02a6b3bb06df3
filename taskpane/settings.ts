import {
  RelayCallError,
  RelayClient,
  RelayConnection,
  RelaySettings,
  SettingsStorage,
  loadSettings,
} from "../src/client";
import { describeIssues, toFieldIssues } from "../src/contract";
import { SpendView, ownBudget } from "./spend";

/**
 * Settings: the relay URL and the relay token, kept in OfficeRuntime.storage by the connection the
 * functions share (a token saved here is used by the very next formula). The token is never shown
 * back: the form only learns whether one is saved, and an empty token field keeps it.
 */
export interface SettingsDeps {
  connection: Pick<RelayConnection, "settings" | "update">;
  storage: SettingsStorage;
  pageOrigin: string | undefined;
  /** For tests; the page's own fetch otherwise. */
  fetch?: typeof fetch;
}

export interface SettingsForm {
  relayUrl: string;
  /** What the user typed; "" keeps the saved token. */
  token: string;
}

export async function savedSettings(deps: SettingsDeps): Promise<{ relayUrl: string; hasToken: boolean }> {
  return deps.connection.settings();
}

/** The settings the form stands for: its URL, its token or else the saved one; STR_NOT_CONFIGURED naming each bad field. */
export async function formSettings(deps: SettingsDeps, form: SettingsForm): Promise<RelaySettings> {
  const token = form.token.trim() || (await loadSettings(deps.storage, deps.pageOrigin)).token || "";
  const parsed = RelaySettings.safeParse({ relayUrl: form.relayUrl, token });
  if (!parsed.success) {
    const fields = toFieldIssues(parsed.error, ["relayUrl", "token"]).map((f) => ({
      ...f,
      path: f.path === "relayUrl" ? "Relay URL" : "Relay token",
    }));
    throw new RelayCallError("STR_NOT_CONFIGURED", describeIssues(fields), { fields });
  }
  return parsed.data;
}

export async function saveSettingsForm(deps: SettingsDeps, form: SettingsForm): Promise<RelaySettings> {
  return deps.connection.update(await formSettings(deps, form));
}

export interface ConnectionReport {
  mode: "sandbox" | "live";
  version: string;
  todayUSD: number;
  budgetUSD: number;
  remainingUSD: number;
  /** The token's own daily budget, when the relay gives it one. */
  own: SpendView["own"];
}

/** Tests the form's settings without saving them: the relay's health (mode, version), then usage (which needs the token). */
export async function testConnection(
  deps: SettingsDeps,
  form: SettingsForm,
  signal?: AbortSignal,
): Promise<ConnectionReport> {
  const settings = await formSettings(deps, form);
  const client = new RelayClient({
    baseUrl: settings.relayUrl,
    token: settings.token,
    timeoutMs: 15_000,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const options = signal ? { signal } : {};
  const health = await client.health(options);
  const usage = await client.usage(options);
  return {
    mode: health.mode,
    version: health.version,
    todayUSD: usage.today.costUSD,
    budgetUSD: usage.budget.dailyUSD,
    remainingUSD: usage.budget.remainingTodayUSD,
    own: ownBudget(usage.callers?.find((c) => c.you)),
  };
}
