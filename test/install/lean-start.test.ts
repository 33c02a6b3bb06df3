import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../../src/relay/http/app";
import { loadConfig } from "../../src/relay/config";
import { makeRedactor } from "../../src/relay/upstream/redact";

/*
 * What str-screen loads before it can say what a run costs: its own relay on the SQLite file needs
 * neither the replicas' drivers (ioredis, pg) nor fastify's JSON-schema compilers (requests are read
 * with the contract's zod schemas), and a CSV needs no workbook library (exceljs); each was a part
 * of the wait on every start. A preload records
 * every package required, in the main thread and in the sandbox's worker thread. npm test builds lib/ first.
 */
const ROOT = path.join(__dirname, "..", "..");
const NOT_NEEDED = [
  "ioredis",
  "pg",
  "ajv",
  "@fastify/ajv-compiler",
  "@fastify/fast-json-stringify-compiler",
  "exceljs",
  // The add-in's static files: str-screen's relay serves no add-in.
  "@fastify/static",
];

/** The packages a run loads; `args` follow the CSV, given the run's folder. */
function packagesLoaded(args: (dir: string) => string[]): { thread: number; name: string }[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-lean-start-"));
  const record = path.join(dir, "loaded.ndjson");
  const preload = path.join(dir, "record.js");
  fs.writeFileSync(
    preload,
    `const Module = require("node:module"); const { threadId } = require("node:worker_threads"); const load = Module._load;
Module._load = function (request, ...rest) {
  if (!request.startsWith(".") && !request.startsWith("node:") && !require("node:path").isAbsolute(request))
    require("node:fs").appendFileSync(${JSON.stringify(record)}, JSON.stringify({ thread: threadId, name: request }) + "\\n");
  return load.call(this, request, ...rest);
};\n`,
  );
  const csv = path.join(dir, "deals.csv");
  fs.writeFileSync(csv, 'Address,Price,Beds,Baths,Sleeps\n"12 Main St, Austin TX",450000,3,2,8\n');
  try {
    const ran = spawnSync(
      process.execPath,
      ["--require", preload, path.join(ROOT, "lib/cli/str-screen.js"), csv, ...args(dir)],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", HOME: dir, RELAY_DATA_DIR: path.join(dir, "data") },
        timeout: 30_000,
      },
    );
    expect(ran.stderr).toMatch(/in-process sandbox relay/);
    expect(ran.status).toBe(0);
    return fs
      .readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { thread: number; name: string });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("str-screen's own relay starts with only what it uses", () => {
  test("a dry run of a CSV loads no replica driver, no schema compiler and no workbook library, in either thread", () => {
    const loaded = packagesLoaded(() => ["--dry-run"]);
    // The record reaches both threads: each builds a fastify app, the relay and its sandbox.
    expect(new Set(loaded.filter((p) => p.name === "fastify").map((p) => p.thread)).size).toBe(2);
    expect(loaded.some((p) => p.name.startsWith("better-sqlite3"))).toBe(true);
    expect(loaded.some((p) => p.name === "undici")).toBe(true);
    expect(loaded.filter((p) => NOT_NEEDED.includes(p.name)).map((p) => p.name)).toEqual([]);
  });
});

describe("routes read their input with the contract's zod schemas", () => {
  test("a relay route given a fastify schema fails to start, saying why", async () => {
    const app = buildApp(loadConfig({}), makeRedactor([]), false);
    app.post("/x", { schema: { body: { type: "object" } } }, async () => ({}));
    await expect(app.ready()).rejects.toThrow(/contract's zod schemas/);
    await app.close();
  });
});
