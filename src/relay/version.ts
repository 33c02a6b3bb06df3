import fs from "node:fs";
import path from "node:path";

/** The package's version, read once (the same relative path works from src/ under ts-jest and from lib/). */
export const RELAY_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
})();
