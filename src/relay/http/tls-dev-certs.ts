import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * office-addin-dev-certs (`npx office-addin-dev-certs install`) makes a localhost certificate signed
 * by a CA it adds to this computer's trust store, so Office and browsers accept it without a
 * warning. RELAY_TLS_DEV_CERTS=true serves the relay with it: https on this computer in one step.
 */

/** Where office-addin-dev-certs keeps its files: ~/.office-addin-dev-certs, whatever the platform. */
export function devCertificateDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.HOME ?? env.USERPROFILE ?? os.homedir(), ".office-addin-dev-certs");
}

/** The certificate and key, or the problem (naming the variable and what to run) when they are not there. */
export function devCertificate(env: NodeJS.ProcessEnv): { cert: string; key: string } | string {
  const dir = devCertificateDir(env);
  const cert = path.join(dir, "localhost.crt");
  const key = path.join(dir, "localhost.key");
  if (fs.existsSync(cert) && fs.existsSync(key)) return { cert, key };
  return `RELAY_TLS_DEV_CERTS is set but there is no ${fs.existsSync(cert) ? key : cert}: run \`npx office-addin-dev-certs install\` once (it asks to trust its certificate authority), then start the relay again`;
}
