import { RelayCallError } from "./relay-call-error";
import { BatchingClient } from "./batcher";
import { RelayClient } from "./relay-client";
import { RelaySettings, SettingsStorage, loadSettings, saveSettings } from "./relay-settings";

/**
 * The add-in's one connection to its relay, shared by the functions and the task pane (they run in
 * one shared runtime). It builds the client from the stored settings and rebuilds it when they
 * change, so a token pasted in the pane is used by the very next formula.
 */
export class RelayConnection {
  readonly #storage: SettingsStorage;
  readonly #pageOrigin: string | undefined;
  readonly #fetch: typeof fetch | undefined;
  #current: { client: RelayClient; batcher: BatchingClient; settings: RelaySettings } | undefined;
  #loading: Promise<{ client: RelayClient; batcher: BatchingClient; settings: RelaySettings }> | undefined;
  #listeners = new Set<(settings: RelaySettings) => void>();

  constructor(options: { storage: SettingsStorage; pageOrigin?: string; fetch?: typeof fetch }) {
    this.#storage = options.storage;
    this.#pageOrigin = options.pageOrigin;
    this.#fetch = options.fetch;
  }

  /**
   * The client and batcher once the settings are loaded, else undefined: a call that finds them
   * ready reaches the batcher in the same tick, so the batch's gathering window starts at the first
   * call of a recalculation rather than after every call of it has been read.
   */
  get ready(): { client: RelayClient; batcher: BatchingClient; settings: RelaySettings } | undefined {
    return this.#current;
  }

  /** The client and batcher for the stored settings; STR_NOT_CONFIGURED when there is no token yet. */
  async get(): Promise<{ client: RelayClient; batcher: BatchingClient; settings: RelaySettings }> {
    if (this.#current) return this.#current;
    // A recalculation calls hundreds of cells at once: they must all wait for the same load and
    // share one batcher, or each would send its own request.
    this.#loading ??= this.#load().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  async #load() {
    const stored = await loadSettings(this.#storage, this.#pageOrigin);
    if (!stored.token) {
      throw new RelayCallError(
        "STR_NOT_CONFIGURED",
        "No relay token yet: open the STR task pane, Settings, and paste the token the relay printed.",
      );
    }
    return this.#current ?? this.#build({ relayUrl: stored.relayUrl, token: stored.token });
  }

  /** Stored settings, for the pane's form (the token is not shown back, only whether there is one). */
  async settings(): Promise<{ relayUrl: string; hasToken: boolean }> {
    const stored = await loadSettings(this.#storage, this.#pageOrigin);
    return { relayUrl: stored.relayUrl, hasToken: stored.token !== undefined };
  }

  /** Validates, stores and starts using new settings. */
  async update(input: unknown): Promise<RelaySettings> {
    const settings = await saveSettings(this.#storage, input);
    this.#build(settings);
    for (const listener of this.#listeners) listener(settings);
    return settings;
  }

  onChange(listener: (settings: RelaySettings) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #build(settings: RelaySettings) {
    const client = new RelayClient({
      baseUrl: settings.relayUrl,
      token: settings.token,
      ...(this.#fetch ? { fetch: this.#fetch } : {}),
    });
    this.#current = { client, batcher: new BatchingClient({ client }), settings };
    return this.#current;
  }
}
