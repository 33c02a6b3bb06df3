import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * The tarball a scheduler's machine installs (`npm pack`, then `npm install -g` of it; docs/cli.md):
 * the commands and the compiled code they run, and nothing of the sources, tests or tooling.
 */
const ROOT = path.join(__dirname, "..", "..");

test("npm pack holds bin/, the compiled lib/ the commands require, and no tests or sources", () => {
  // The pack lists the files as they are: lib/ must have been built (npm test builds it first).
  expect(fs.existsSync(path.join(ROOT, "lib", "cli", "str-screen.js"))).toBe(true);
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(pack.status).toBe(0);
  const files: string[] = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);

  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
  expect(Object.keys(pkg.bin).sort()).toEqual(["str-relay", "str-screen"]);
  for (const bin of Object.values(pkg.bin)) {
    expect(files).toContain(bin);
    // Each command's script requires a compiled entry point that is in the tarball too.
    const entry = /require\("\.\.\/(lib\/[^"]+)"\)/.exec(fs.readFileSync(path.join(ROOT, bin), "utf8"))?.[1];
    expect(files).toContain(entry);
  }
  expect(files).toEqual(
    expect.arrayContaining([
      "lib/cli/str-screen.js",
      "lib/relay/str-relay.js",
      "lib/sandbox/sandbox-server.js",
      // The embedded sandbox's thread (src/relay/upstream/embedded-sandbox.ts).
      "lib/sandbox/worker.js",
      "package.json",
      "LICENSE",
      "docs/cli.md",
    ]),
  );
  expect(
    files.filter(
      (f) =>
        /^(test|src|bench|scripts|taskpane|functions|deploy)\//.test(f) ||
        /\.test\.|\.map$|tsconfig|jest\.config/.test(f),
    ),
  ).toEqual([]);
}, 150_000);
