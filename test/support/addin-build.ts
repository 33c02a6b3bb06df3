import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The add-in's production build, made once per change of its sources and shared by the suites that
 * need it (the build checks, the relay serving dist/, the browser tests): `webpack --mode
 * production`, as `npm run build` runs it, into node_modules/.cache — dist/ is left alone.
 */
const ROOT = path.resolve(__dirname, "../..");
const WEBPACK = require.resolve("webpack-cli/bin/cli.js", { paths: [ROOT] });
const SOURCES = [
  "functions",
  "taskpane",
  "src/contract",
  "src/client",
  "src/sheet",
  "src/inputs",
  "assets",
  "webpack.config.js",
  "manifest.xml",
  "tsconfig.web.json",
  "package-lock.json",
];

/**
 * Every build runs with a service key and relay tokens in its environment, so the bundle tests can
 * prove that nothing in the build (a DefinePlugin, an env plugin) carries them into dist/.
 */
export const BUILD_ENV_SECRETS = {
  STR_API_KEY: "sk_live_BUILD_ENV_SENTINEL_9f2c41",
  RELAY_TOKENS: "relay-token-BUILD-ENV-SENTINEL-77ad03",
  STR_RELAY_TOKEN: "relay-token-BUILD-ENV-SENTINEL-77ad03",
};

function hashSources(): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(BUILD_ENV_SECRETS));
  const walk = (p: string) => {
    const full = path.join(ROOT, p);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) for (const entry of fs.readdirSync(full).sort()) walk(path.join(p, entry));
    else hash.update(p).update(fs.readFileSync(full));
  };
  SOURCES.forEach(walk);
  return hash.digest("hex").slice(0, 16);
}

/** The directory of a production build of the current sources. */
export async function addinBuild(): Promise<string> {
  const dir = path.join(ROOT, "node_modules", ".cache", "str-addin-build", hashSources());
  if (fs.existsSync(path.join(dir, "manifest.xml"))) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await promisify(execFile)(
    process.execPath,
    [WEBPACK, "--mode", "production", "--output-path", tmp, "--stats", "errors-warnings"],
    {
      cwd: ROOT,
      env: { ...process.env, ...BUILD_ENV_SECRETS, CI: "true" },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 170_000,
    },
  );
  try {
    fs.renameSync(tmp, dir);
  } catch {
    // Another test process finished the same build first: use theirs.
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}
