import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/relay/config";
import { createRelay } from "../../src/relay/server";
import { watchSandboxes } from "../support/sandbox-watch";

describe("a relay that cannot be built", () => {
  test("ends the embedded sandbox it had started (its store's folder is a file)", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "str-relay-fail-")), "not-a-folder");
    fs.writeFileSync(file, "");
    const sandboxes = await watchSandboxes();
    try {
      await expect(
        createRelay({
          config: loadConfig({ RELAY_DATA_DIR: file }),
          tokens: ["rt_start_failure_0123456789abcdef"],
          logger: false,
          sandbox: { timeScale: 0 },
        }),
      ).rejects.toThrow();
      expect(sandboxes.count).toBe(1);
      expect(await sandboxes.anyListening()).toBe(false);
    } finally {
      await sandboxes.restore();
    }
  });
});
