import {
  RelayCallError,
  RelayConnection,
  defaultRelayUrl,
  loadSettings,
  memoryStorage,
  saveSettings,
} from "../../src/client";

describe("relay settings", () => {
  test("the default relay URL is the page's origin in production and the local relay in development", () => {
    expect(defaultRelayUrl("https://relay.example.com")).toBe("https://relay.example.com");
    expect(defaultRelayUrl("https://localhost:3000")).toBe("http://localhost:8787");
    expect(defaultRelayUrl(undefined)).toBe("http://localhost:8787");
  });

  test("bad settings are refused naming each field and its rule, and nothing is stored", async () => {
    const storage = memoryStorage();
    const error = await saveSettings(storage, { relayUrl: "http://relay.example.com", token: "short" }).catch(
      (e: RelayCallError) => e,
    );
    expect(error).toBeInstanceOf(RelayCallError);
    expect((error as RelayCallError).fields).toEqual([
      { path: "relayUrl", message: expect.stringMatching(/https:\/\/ URL \(http:\/\/ only for this computer/) },
      { path: "token", message: expect.stringMatching(/16 or more characters/) },
    ]);
    expect(await loadSettings(storage, "https://localhost:3000")).toEqual({
      relayUrl: "http://localhost:8787",
      token: undefined,
    });
  });

  test("the connection needs a token, then uses new settings at once", async () => {
    const connection = new RelayConnection({ storage: memoryStorage(), pageOrigin: "https://relay.example.com" });
    await expect(connection.get()).rejects.toMatchObject({ code: "STR_NOT_CONFIGURED" });
    const changes: string[] = [];
    connection.onChange((s) => changes.push(s.relayUrl));
    await connection.update({ relayUrl: "https://relay.example.com/", token: "a-token-0123456789abcdef" });
    const { client, settings } = await connection.get();
    expect(client.baseUrl).toBe("https://relay.example.com");
    expect(settings.token).toBe("a-token-0123456789abcdef");
    expect(changes).toEqual(["https://relay.example.com"]);
    expect(await connection.settings()).toEqual({ relayUrl: "https://relay.example.com", hasToken: true });
  });

  test("many callers at once before the first load share one client and one batcher", async () => {
    const storage = memoryStorage({
      "str.relayUrl": "https://relay.example.com",
      "str.relayToken": "a-token-0123456789abcdef",
    });
    const connection = new RelayConnection({ storage });
    const all = await Promise.all(Array.from({ length: 50 }, () => connection.get()));
    expect(new Set(all.map((c) => c.batcher)).size).toBe(1);
  });
});
