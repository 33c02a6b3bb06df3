import { sandboxOptionsFromEnv } from "../../src/sandbox/sandbox-options";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, loadConfig } from "../../src/relay/config";
import { markTokenShown, resolveTokens } from "../../src/relay/callers/tokens";

describe("relay configuration", () => {
  test("with nothing set: the sandbox on 127.0.0.1:8787, 100 req/s, a 1,000 USD simulated budget, no cache expiry, stale after 30 days", () => {
    const c = loadConfig({ HOME: "/home/someone" });
    expect(c).toMatchObject({
      mode: "sandbox",
      host: "127.0.0.1",
      port: 8787,
      publicUrl: "http://localhost:8787",
      upstreamRps: 100,
      budgetUSDPerDay: 1000,
      cacheTtlMs: undefined,
      staleAfterMs: 30 * 86_400_000,
      upstreamTimeoutMs: 300_000,
      tokens: undefined,
    });
    expect(c.allowedOrigins).toEqual(["https://localhost:3000", "http://localhost:8787"]);
  });

  test("a key and base URL make it live, with a 100 USD default budget", () => {
    const c = loadConfig({
      STR_API_KEY: "sk_live_abcdefgh",
      STR_API_BASE_URL: "https://api.example.com/",
      RELAY_BUDGET_USD_PER_DAY: "",
    });
    expect(c).toMatchObject({ mode: "live", apiBaseUrl: "https://api.example.com", budgetUSDPerDay: 100 });
  });

  test("every bad variable is listed at once, each with its name and rule", () => {
    let message = "";
    try {
      loadConfig({
        RELAY_PORT: "eighty",
        RELAY_UPSTREAM_RPS: "0",
        RELAY_BUDGET_USD_PER_DAY: "-5",
        STR_API_BASE_URL: "http://api.example.com",
        RELAY_TOKENS: "short",
        RELAY_TLS_CERT: "/x.pem",
      });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/RELAY_PORT must be a whole number from 0 to 65,535; got "eighty"/);
    expect(message).toMatch(/RELAY_UPSTREAM_RPS must be a number from 0.1 to 10,000 \(requests a second\); got 0/);
    expect(message).toMatch(/RELAY_BUDGET_USD_PER_DAY must be a number of at least 0/);
    expect(message).toMatch(/STR_API_BASE_URL must be an https URL/);
    expect(message).toMatch(/STR_API_KEY is required with STR_API_BASE_URL/);
    expect(message).toMatch(/RELAY_TOKENS\[0\] must be at least 16 characters/);
    expect(message).toMatch(/RELAY_TLS_CERT and RELAY_TLS_KEY go together/);
  });

  test("RELAY_STALE_AFTER_DAYS sets when a cached answer is marked stale; it must be more than 0 days", () => {
    expect(loadConfig({ RELAY_STALE_AFTER_DAYS: "7.5" }).staleAfterMs).toBe(7.5 * 86_400_000);
    expect(() => loadConfig({ RELAY_STALE_AFTER_DAYS: "0" })).toThrow(
      /RELAY_STALE_AFTER_DAYS must be a number greater than 0 \(days\); got 0/,
    );
    expect(() => loadConfig({ RELAY_STALE_AFTER_DAYS: "a month" })).toThrow(/RELAY_STALE_AFTER_DAYS .*got "a month"/);
  });

  test("settings that go together are refused apart", () => {
    expect(() => loadConfig({ RELAY_TLS_CERT: "/c.pem" })).toThrow(/RELAY_TLS_CERT and RELAY_TLS_KEY go together/);
    expect(() => loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" })).toThrow(/REDIS_URL and DATABASE_URL go together/);
  });

  test("RELAY_ALLOWED_ORIGINS: a trailing slash and upper case are normalised as browsers send origins; a path or query stops the start", () => {
    expect(loadConfig({ RELAY_ALLOWED_ORIGINS: "https://A.example/, http://localhost:3001" }).allowedOrigins).toEqual([
      "https://a.example",
      "http://localhost:3001",
      "http://localhost:8787",
    ]);
    for (const bad of [
      "https://a.example/app",
      "https://a.example?x=1",
      "a.example",
      "ftp://a.example",
      "https://user:pw@a.example",
      "https://a.example#x",
    ]) {
      expect(() => loadConfig({ RELAY_ALLOWED_ORIGINS: bad })).toThrow(
        new RegExp(`RELAY_ALLOWED_ORIGINS .*origins.*got "${bad.replace(/[?.]/g, "\\$&")}"`),
      );
    }
  });

  test("every bad variable's error names the variable and the value it held (secrets excepted)", () => {
    expect(() => loadConfig({ RELAY_LOG_LEVEL: "loud" })).toThrow(
      /RELAY_LOG_LEVEL must be one of fatal, .*; got "loud"/,
    );
    expect(() => loadConfig({ RELAY_STORE_NAMESPACE: "Bad-NS" })).toThrow(
      /RELAY_STORE_NAMESPACE must be .*; got "Bad-NS"/,
    );
    expect(() => sandboxOptionsFromEnv({ SANDBOX_TIME_SCALE: "fast" })).toThrow(/SANDBOX_TIME_SCALE .*; got "fast"/);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_AI_FAILURE_RATE: "2" })).toThrow(
      /SANDBOX_AI_FAILURE_RATE .*; got "2"/,
    );
    const secret = "sk live with spaces";
    expect(() => loadConfig({ STR_API_KEY: secret, STR_API_BASE_URL: "https://api.example.com" })).toThrow(
      /STR_API_KEY must be/,
    );
    expect(() => loadConfig({ STR_API_KEY: secret, STR_API_BASE_URL: "https://api.example.com" })).not.toThrow(
      new RegExp(secret),
    );
  });

  test("RELAY_DEPLOYMENT_NAME names a non-production deployment; it must be a short plain name", () => {
    expect(loadConfig({}).deploymentName).toBeUndefined();
    expect(loadConfig({ RELAY_DEPLOYMENT_NAME: " staging " }).deploymentName).toBe("staging");
    expect(() => loadConfig({ RELAY_DEPLOYMENT_NAME: "<b>" })).toThrow(/RELAY_DEPLOYMENT_NAME must be .*; got "<b>"/);
    expect(() => loadConfig({ RELAY_DEPLOYMENT_NAME: "x".repeat(33) })).toThrow(
      /RELAY_DEPLOYMENT_NAME must be 1 to 32/,
    );
  });

  test("RELAY_TLS_DEV_CERTS serves with office-addin-dev-certs' localhost certificate, found in the home folder", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "str-home-"));
    const dir = path.join(home, ".office-addin-dev-certs");
    expect(() => loadConfig({ HOME: home, RELAY_TLS_DEV_CERTS: "true" })).toThrow(
      /RELAY_TLS_DEV_CERTS .*no .*localhost\.crt.*npx office-addin-dev-certs install/,
    );
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "localhost.crt"), "cert");
    fs.writeFileSync(path.join(dir, "localhost.key"), "key");
    const config = loadConfig({ HOME: home, RELAY_TLS_DEV_CERTS: "1", RELAY_PORT: "9443" });
    expect(config.tls).toEqual({ cert: path.join(dir, "localhost.crt"), key: path.join(dir, "localhost.key") });
    expect(config.publicUrl).toBe("https://localhost:9443");
    expect(loadConfig({ HOME: home, RELAY_TLS_DEV_CERTS: "0" }).tls).toBeUndefined();
    expect(() => loadConfig({ HOME: home, RELAY_TLS_DEV_CERTS: "yes please" })).toThrow(
      /RELAY_TLS_DEV_CERTS must be true or false .*; got "yes please"/,
    );
    expect(() =>
      loadConfig({ HOME: home, RELAY_TLS_DEV_CERTS: "1", RELAY_TLS_CERT: "/c.pem", RELAY_TLS_KEY: "/k.pem" }),
    ).toThrow(/RELAY_TLS_DEV_CERTS .*RELAY_TLS_CERT/);
  });

  test("TLS makes the default public URL https", () => {
    expect(loadConfig({ RELAY_TLS_CERT: "/c.pem", RELAY_TLS_KEY: "/k.pem", RELAY_PORT: "9443" }).publicUrl).toBe(
      "https://localhost:9443",
    );
  });
});

describe("the relay token", () => {
  test("is generated once, kept readable by the user only, and the same at the next start", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-token-"));
    const first = resolveTokens(undefined, dir);
    expect(first.generated).toBe(true);
    expect(first.tokens[0]).toMatch(/^rt_[A-Za-z0-9_-]{32}$/);
    expect(fs.statSync(first.file as string).mode & 0o077).toBe(0);
    const second = resolveTokens(undefined, dir);
    expect(second).toMatchObject({ generated: false, tokens: first.tokens });
  });

  test("stays to be shown until a start has shown it (one that failed after generating it had not)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-token-"));
    expect(resolveTokens(undefined, dir)).toMatchObject({ generated: true, unshown: true });
    const again = resolveTokens(undefined, dir);
    expect(again).toMatchObject({ generated: false, unshown: true });
    markTokenShown(dir);
    expect(resolveTokens(undefined, dir)).toMatchObject({ generated: false, unshown: false, tokens: again.tokens });
    expect(resolveTokens(["a-configured-token-123456"], dir).unshown).toBe(false);
  });

  test("configured tokens win and nothing is written", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-token-"));
    expect(resolveTokens(["a-configured-token-123456"], dir)).toMatchObject({
      tokens: ["a-configured-token-123456"],
      generated: false,
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
