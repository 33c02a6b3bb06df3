import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * From Node 22.1 on, `module.enableCompileCache()` keeps the compiled code of every module loaded
 * after it on disk, so the next start skips compiling them (Node's documentation, "Module compile
 * cache"). Node 20 has no such function: here a preload stands in for it and records which of the
 * project's modules had loaded when the command called it. npm test builds lib/ first.
 */
const ROOT = path.join(__dirname, "..", "..");

function modulesLoadedAtTheCall(entry: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-compile-cache-"));
  const record = path.join(dir, "called.json");
  const preload = path.join(dir, "stand-in.js");
  fs.writeFileSync(
    preload,
    `require("node:module").enableCompileCache = () => require("node:fs").appendFileSync(${JSON.stringify(record)}, JSON.stringify(Object.keys(require.cache)) + "\\n");\n`,
  );
  try {
    const ran = spawnSync(process.execPath, ["--require", preload, path.join(ROOT, entry), "--version"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: dir },
      timeout: 20_000,
    });
    expect(ran.status).toBe(0);
    const calls = fs.readFileSync(record, "utf8").trim().split("\n");
    expect(calls).toHaveLength(1);
    return (JSON.parse(calls[0] as string) as string[])
      .filter((file) => file.startsWith(path.join(ROOT, "lib")))
      .map((file) => path.relative(ROOT, file));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("the commands keep their compiled code between starts", () => {
  test.each([
    ["bin/str-screen.js", "lib/cli/str-screen.js"],
    ["bin/str-relay.js", "lib/relay/str-relay.js"],
    ["lib/relay/str-relay.js", "lib/relay/str-relay.js"],
  ])("%s turns the compile cache on before any other of its modules loads", (entry, main) => {
    expect(modulesLoadedAtTheCall(entry).sort()).toEqual([main, "lib/relay/compile-cache.js"].sort());
  });
});
