import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ensurePrivateDir, ensurePrivateFile } from "./store/private-files";

/*
 * Relay tokens: the only credential the add-in and scripts hold. Configured in RELAY_TOKENS, or
 * generated on first start and kept in the data directory (readable by the user only), so a fresh
 * machine works with no configuration and a restart keeps the same token.
 */

export const TOKEN_FILE = "relay-token";

/**
 * Written beside the token once a start has shown it in its banner. A start that generated the
 * token and then failed (its port in use) never showed it; until this file exists, each start does.
 */
export const TOKEN_SHOWN_FILE = "relay-token.shown";

export function generateToken(): string {
  return `rt_${randomBytes(24).toString("base64url")}`;
}

/** The configured tokens, or the one kept in `dataDir` (created now if there is none). */
export function resolveTokens(
  configured: string[] | undefined,
  dataDir: string,
): { tokens: string[]; generated: boolean; file: string | undefined; unshown: boolean } {
  if (configured && configured.length > 0)
    return { tokens: configured, generated: false, file: undefined, unshown: false };
  const file = path.join(dataDir, TOKEN_FILE);
  const unshown = !fs.existsSync(path.join(dataDir, TOKEN_SHOWN_FILE));
  ensurePrivateDir(dataDir);
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (existing.length >= 16) {
      ensurePrivateFile(file);
      return { tokens: [existing], generated: false, file, unshown };
    }
  } catch {
    // No token yet: make one below.
  }
  ensurePrivateFile(file);
  const token = generateToken();
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.rmSync(path.join(dataDir, TOKEN_SHOWN_FILE), { force: true });
  return { tokens: [token], generated: true, file, unshown: true };
}

/** Records that the kept token was shown in a banner: later starts say where it is, not what. */
export function markTokenShown(dataDir: string): void {
  fs.writeFileSync(path.join(dataDir, TOKEN_SHOWN_FILE), "", { mode: 0o600 });
}

/**
 * A constant-time check of a presented token against every configured one. Both sides are hashed
 * first, so lengths never differ, and every token is compared, so timing says nothing of which.
 */
export function tokenChecker(tokens: readonly string[]): (presented: string) => boolean {
  const digests = tokens.map((t) => createHash("sha256").update(t).digest());
  return (presented) => {
    const given = createHash("sha256").update(presented).digest();
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, given) || ok;
    return ok;
  };
}

/** A stable, non-secret name for a token (for per-caller limits and logs). */
export function tokenId(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 12);
}
