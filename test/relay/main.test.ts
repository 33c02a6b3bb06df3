import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** `str-relay` as a user runs it: the built bin/str-relay.js in its own process. */
const BIN = path.resolve(__dirname, "..", "..", "bin", "str-relay.js");
const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? "", HOME: os.tmpdir(), ...extra });

describe("str-relay on the command line", () => {
  test("--help and --version print and exit without starting a server", () => {
    const help = spawnSync(process.execPath, [BIN, "--help"], { env: env({}), encoding: "utf8", timeout: 10_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: str-relay/);
    expect(help.stdout).toMatch(/docs\/configuration\.md/);
    expect(help.stdout).toMatch(/Standard output is the log/);
    const version = spawnSync(process.execPath, [BIN, "--version"], {
      env: env({}),
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const bad = spawnSync(process.execPath, [BIN, "--port", "1"], { env: env({}), encoding: "utf8", timeout: 10_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option --port/);
  }, 60_000);

  test("RELAY_PORT=0 listens on a free port, and the public URL and manifest URL name that port", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-relay-main-"));
    const child = spawn(process.execPath, [BIN], {
      env: env({ RELAY_PORT: "0", RELAY_DATA_DIR: dataDir }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += String(c)));
    try {
      // The banner, for a person, is on stderr: stdout is the JSON log.
      let out = "";
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 50_000);
        child.stderr.on("data", (c: Buffer) => {
          out += String(c);
          if (out.includes("Add-in manifest:")) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
      expect(port).toBeGreaterThan(0);
      expect(out).toContain(`public URL http://localhost:${port}`);
      // The manifest is advertised where it is served: a checkout without dist/ answers 404 for it.
      const built = fs.existsSync(path.resolve(__dirname, "..", "..", "dist", "manifest.xml"));
      expect(out).toContain(
        built
          ? `Add-in manifest: http://localhost:${port}/manifest.xml`
          : "Add-in manifest: none served here until the add-in is built (npm run build, then restart the relay)",
      );
      const token = /Relay token \(generated[^)]*\): (\S+)/.exec(out)?.[1];
      expect(token).toMatch(/^rt_/);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const usage = await fetch(`http://127.0.0.1:${port}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
      expect(usage.status).toBe(200);
      await until(() => stdout.includes('"route":"/v1/usage"'));
      // Every stdout line is JSON with an event name; none holds the token.
      const lines = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.every((l) => typeof l.event === "string")).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ event: "relay.started", url: `http://127.0.0.1:${port}`, mode: "sandbox" }),
      );
      expect(lines).toContainEqual(expect.objectContaining({ event: "http.request", route: "/healthz", status: 200 }));
      expect(lines).toContainEqual(
        expect.objectContaining({ event: "http.request", route: "/v1/usage", status: 200, caller: expect.any(String) }),
      );
      expect(stdout).not.toContain(token);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    expect(stdout).toContain('"event":"relay.stopping"');
  }, 60_000);

  test("the banner and the start line show the service's and the public URL without their user:password", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-relay-main-"));
    const child = spawn(process.execPath, [BIN], {
      env: env({
        RELAY_PORT: "0",
        RELAY_DATA_DIR: dataDir,
        STR_API_KEY: "sk_live_banner_key_0123456789",
        STR_API_BASE_URL: "http://svc-user:Banner-Pass-123@localhost:9/api",
        RELAY_PUBLIC_URL: "https://pub-user:Public-Pass-456@relay.example",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += String(c)));
    child.stderr.on("data", (c: Buffer) => (stderr += String(c)));
    try {
      await until(() => stderr.includes("Add-in manifest:") && stdout.includes("relay.started"));
      expect(stderr).toContain("Mode: LIVE — relaying to http://localhost:9/api");
      // Named at the public URL when the add-in is built; said to be unserved otherwise.
      expect(stderr).toMatch(/Add-in manifest: (https:\/\/relay\.example\/manifest\.xml|none served here)/);
      for (const secret of ["Banner-Pass-123", "svc-user", "Public-Pass-456", "pub-user"]) {
        expect(stderr).not.toContain(secret);
        expect(stdout).not.toContain(secret);
      }
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }, 60_000);

  test("a token generated by a start that failed (its port in use) is shown by the next start, and only by it", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-relay-main-"));
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const failed = spawnSync(process.execPath, [BIN], {
        env: env({ RELAY_PORT: String(port), RELAY_DATA_DIR: dataDir }),
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(failed.status).not.toBe(0);
      expect(failed.stderr).toMatch(/EADDRINUSE/);
    } finally {
      busy.close();
    }
    const token = fs.readFileSync(path.join(dataDir, "relay-token"), "utf8").trim();
    const next = await bannerOf(dataDir);
    expect(next).toContain(`Relay token (generated by an earlier start that did not finish, kept in`);
    expect(next).toContain(token);
    const after = await bannerOf(dataDir);
    expect(after).not.toContain(token);
    expect(after).toMatch(/Relay token: kept in /);
  }, 120_000);
});

/** The banner of a start on a free port with `dataDir`, once it is listening (the relay is then stopped). */
async function bannerOf(dataDir: string): Promise<string> {
  const child = spawn(process.execPath, [BIN], {
    env: env({ RELAY_PORT: "0", RELAY_DATA_DIR: dataDir }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let out = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 50_000);
      child.stderr.on("data", (c: Buffer) => {
        out += String(c);
        if (out.includes("Add-in manifest:")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    return out;
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
}
