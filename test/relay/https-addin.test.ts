import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Agent, fetch } from "undici";
import { EVENTS } from "../../src/relay/ops/events";
import { DEV_CERTS_COMMAND, plainHttpAdvice } from "../../src/relay/http/https-advice";
import { addinBuild } from "../support/addin-build";
import { reservedPort } from "../support/ports";
import { startRelay } from "../support/relay";

/**
 * Office loads add-in pages only over https. A relay given a certificate serves the add-in and its
 * manifest over https, every URL in it https; one that serves the add-in over plain http says so at
 * start, on stderr, with the one command that fixes it.
 */
const ROOT = path.resolve(__dirname, "../..");

/** A self-signed certificate for localhost (and 127.0.0.1), made with openssl for this test. */
function selfSigned(dir: string): { cert: string; key: string; pem: string } {
  const cert = path.join(dir, "localhost.crt");
  const key = path.join(dir, "localhost.key");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "pipe" },
  );
  return { cert, key, pem: fs.readFileSync(cert, "utf8") };
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "str-https-"));

describe("the relay serves the add-in over https", () => {
  test.each([
    [
      "RELAY_TLS_CERT and RELAY_TLS_KEY",
      (c: { cert: string; key: string }) => ({ RELAY_TLS_CERT: c.cert, RELAY_TLS_KEY: c.key }),
    ],
    [
      "RELAY_TLS_DEV_CERTS with office-addin-dev-certs' files",
      (c: { cert: string; key: string }) => {
        const home = tmp();
        fs.mkdirSync(path.join(home, ".office-addin-dev-certs"));
        fs.copyFileSync(c.cert, path.join(home, ".office-addin-dev-certs", "localhost.crt"));
        fs.copyFileSync(c.key, path.join(home, ".office-addin-dev-certs", "localhost.key"));
        return { HOME: home, RELAY_TLS_DEV_CERTS: "true" };
      },
    ],
  ])(
    "with %s: manifest.xml over https, every URL in it https on the relay",
    async (_, envFor) => {
      const certs = selfSigned(tmp());
      const reserved = await reservedPort();
      const port = reserved.port;
      const t = await startRelay({ ...envFor(certs), RELAY_PORT: String(port) }, { addinDir: await addinBuild() });
      const dispatcher = new Agent({ connect: { ca: certs.pem } });
      try {
        await reserved.release();
        await t.relay.app.listen({ host: "127.0.0.1", port });
        const r = await fetch(`https://localhost:${port}/manifest.xml`, { dispatcher });
        expect(r.status).toBe(200);
        expect(r.headers.get("strict-transport-security")).toMatch(/max-age=/);
        const xml = await r.text();
        const urls = [...xml.matchAll(/"(https?:\/\/[^"]+)"|>(https?:\/\/[^<]+)</g)]
          .map((m) => (m[1] ?? m[2]) as string)
          .filter((u) => !u.startsWith("http://schemas.microsoft.com") && !u.startsWith("http://www.w3.org"));
        expect(urls.length).toBeGreaterThan(8);
        for (const url of urls)
          expect(url.startsWith(`https://localhost:${port}/`) || url === `https://localhost:${port}`).toBe(true);
        // And the page it names loads over the same https.
        const pane = await fetch(`https://localhost:${port}/taskpane.html`, { dispatcher });
        expect(pane.status).toBe(200);
        expect(t.relay.app.initialConfig.https).toBeTruthy();
      } finally {
        await dispatcher.close();
        await t.close();
      }
    },
    180_000,
  );
});

describe("serving the add-in over plain http says how to fix it", () => {
  test("the advice names the manifest's http URL and the one command", () => {
    const advice = plainHttpAdvice({ publicUrl: "http://localhost:8787" }, true) as string;
    expect(advice).toContain("http://localhost:8787/manifest.xml");
    expect(advice).toMatch(/only over https/);
    expect(advice).toContain(DEV_CERTS_COMMAND);
    expect(plainHttpAdvice({ publicUrl: "http://localhost:8787" }, false)).toBeUndefined();
    expect(plainHttpAdvice({ publicUrl: "https://relay.example.com" }, true)).toBeUndefined();
  });

  /**
   * `str-relay` as installed (bin/, lib/, dist/ and node_modules side by side), in its own process:
   * the http advice on stderr when it serves the add-in over http, none with the development certificate.
   */
  async function runInstalled(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
    const dir = tmp();
    fs.cpSync(path.join(ROOT, "bin"), path.join(dir, "bin"), { recursive: true });
    fs.cpSync(path.join(ROOT, "lib"), path.join(dir, "lib"), { recursive: true });
    fs.symlinkSync(await addinBuild(), path.join(dir, "dist"));
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    fs.copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
    const child = spawn(process.execPath, [path.join(dir, "bin", "str-relay.js")], {
      env: { PATH: process.env.PATH ?? "", HOME: tmp(), RELAY_PORT: "0", RELAY_DATA_DIR: tmp(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += String(c)));
    child.stderr.on("data", (c: Buffer) => (stderr += String(c)));
    const closed = new Promise((resolve) => child.once("close", resolve));
    try {
      // The relay logs relay.started after it has written the advice, if any.
      await new Promise<void>((resolve, reject) => {
        const started = () => {
          if (!stdout.includes(`"event":"${EVENTS.started}"`)) return;
          child.stdout.off("data", started);
          resolve();
        };
        child.stdout.on("data", started);
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${stdout}${stderr}`)));
      });
    } finally {
      child.kill("SIGTERM");
      // Both pipes read to their end: what was written to stderr before the started line is in.
      await closed;
    }
    return { stdout, stderr };
  }

  test("str-relay serving the add-in over http prints the advice on stderr, never on stdout", async () => {
    const { stdout, stderr } = await runInstalled({});
    expect(stderr).toMatch(/The add-in is served over plain http \(http:\/\/localhost:\d+\/manifest\.xml\)/);
    expect(stderr).toContain(DEV_CERTS_COMMAND);
    expect(stdout).not.toContain(DEV_CERTS_COMMAND);
  }, 120_000);

  test("with the development certificate, it serves https and gives no advice", async () => {
    const home = tmp();
    fs.mkdirSync(path.join(home, ".office-addin-dev-certs"));
    selfSigned(path.join(home, ".office-addin-dev-certs"));
    const { stdout, stderr } = await runInstalled({ HOME: home, RELAY_TLS_DEV_CERTS: "true" });
    expect(stdout + stderr).toMatch(/https:\/\/localhost:\d+\/manifest\.xml/);
    expect(stderr).not.toContain(DEV_CERTS_COMMAND);
  }, 120_000);
});
