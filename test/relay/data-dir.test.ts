import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/relay/config";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { resolveTokens } from "../../src/relay/callers/tokens";
import { startRelay } from "../support/relay";

/**
 * Whoever owns the data directory, or a file in it, could have planted a token the relay would
 * accept, or a link that has it write and chmod another file. Those are refused with the path and
 * the rule; another owner is accepted only when the operator says so (a container's volume).
 * The tests run as root here: "another user" is nobody (uid 65534), as chown makes it.
 */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const rootOnly = asRoot ? test : test.skip;
const posixOnly = process.platform === "win32" ? test.skip : test;

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "str-datadir-"));
const PLANTED = "rt_planted_token_0123456789abcdef";

describe("a data directory or file of another user is refused", () => {
  rootOnly(
    "a directory owned by another user: no token read from it, no store opened in it, its mode kept",
    async () => {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, "relay-token"), `${PLANTED}\n`);
      fs.chownSync(path.join(dir, "relay-token"), NOBODY, NOBODY);
      fs.chmodSync(dir, 0o755);
      fs.chownSync(dir, NOBODY, NOBODY);
      const rule = new RegExp(`${dir} is owned by user ${NOBODY}.*RELAY_DATA_DIR_ALLOW_OTHER_OWNER=true`);
      expect(() => resolveTokens(undefined, dir)).toThrow(rule);
      await expect(startRelay({}, { dataDir: dir })).rejects.toThrow(rule);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o755);
      expect(fs.existsSync(path.join(dir, "relay.sqlite"))).toBe(false);
    },
  );

  rootOnly("a token file another user planted in the relay's own directory is refused, not accepted", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "relay-token"), `${PLANTED}\n`);
    fs.chownSync(path.join(dir, "relay-token"), NOBODY, NOBODY);
    expect(() => resolveTokens(undefined, dir)).toThrow(
      new RegExp(`file ${path.join(dir, "relay-token")} is owned by user ${NOBODY}`),
    );
  });

  rootOnly("RELAY_DATA_DIR_ALLOW_OTHER_OWNER=true accepts them (a container's volume)", async () => {
    const dir = tempDir();
    fs.chownSync(dir, NOBODY, NOBODY);
    const config = loadConfig({ RELAY_DATA_DIR: dir, RELAY_DATA_DIR_ALLOW_OTHER_OWNER: "true" });
    expect(config.dataDirAllowOtherOwner).toBe(true);
    const { generated } = resolveTokens(undefined, dir, { allowOtherOwner: true });
    expect(generated).toBe(true);
    const t = await startRelay({ RELAY_DATA_DIR_ALLOW_OTHER_OWNER: "true" }, { dataDir: dir });
    await t.close();
    expect(fs.existsSync(path.join(dir, "relay.sqlite"))).toBe(true);
  });

  test("the setting is true or false, and false unless set", () => {
    expect(loadConfig({}).dataDirAllowOtherOwner).toBe(false);
    expect(() => loadConfig({ RELAY_DATA_DIR_ALLOW_OTHER_OWNER: "maybe" })).toThrow(
      /RELAY_DATA_DIR_ALLOW_OTHER_OWNER must be true or false/,
    );
  });
});

describe("links planted in the data directory are never followed", () => {
  posixOnly("a relay-token link: refused, naming the path; its target neither read, written nor chmod-ed", () => {
    const dir = tempDir();
    const target = path.join(tempDir(), "victim");
    fs.writeFileSync(target, "the victim's own text\n", { mode: 0o644 });
    fs.chmodSync(target, 0o644);
    fs.symlinkSync(target, path.join(dir, "relay-token"));
    expect(() => resolveTokens(undefined, dir)).toThrow(
      new RegExp(`file ${path.join(dir, "relay-token")} is a symbolic link: the relay never follows a link`),
    );
    expect(fs.readFileSync(target, "utf8")).toBe("the victim's own text\n");
    expect(fs.statSync(target).mode & 0o777).toBe(0o644);
  });

  posixOnly("a link to a token elsewhere is not read as the relay's token", () => {
    const dir = tempDir();
    const elsewhere = path.join(tempDir(), "token");
    fs.writeFileSync(elsewhere, `${PLANTED}\n`);
    fs.symlinkSync(elsewhere, path.join(dir, "relay-token"));
    expect(() => resolveTokens(undefined, dir)).toThrow(/symbolic link/);
  });

  posixOnly("relay.sqlite, or its -wal or -shm file, as a link: the store is not opened, the target untouched", () => {
    for (const name of ["relay.sqlite", "relay.sqlite-wal", "relay.sqlite-shm"]) {
      const dir = tempDir();
      const target = path.join(tempDir(), "victim");
      fs.writeFileSync(target, "x", { mode: 0o644 });
      fs.chmodSync(target, 0o644);
      fs.symlinkSync(target, path.join(dir, name));
      expect(() => new SqliteStore(path.join(dir, "relay.sqlite"))).toThrow(
        new RegExp(`${path.join(dir, name)} is a symbolic link`),
      );
      expect(fs.readFileSync(target, "utf8")).toBe("x");
      expect(fs.statSync(target).mode & 0o777).toBe(0o644);
    }
  });

  posixOnly("the relay's own files, made by it, open as before and stay 0600", async () => {
    const dir = tempDir();
    const first = resolveTokens(undefined, dir);
    expect(resolveTokens(undefined, dir).tokens).toEqual(first.tokens);
    const store = new SqliteStore(path.join(dir, "relay.sqlite"));
    await store.close();
    const again = new SqliteStore(path.join(dir, "relay.sqlite"));
    await again.close();
    expect(fs.statSync(path.join(dir, "relay-token")).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, "relay.sqlite")).mode & 0o777).toBe(0o600);
  });
});
