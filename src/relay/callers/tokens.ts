import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PrivateFileRules, ensurePrivateDir, readPrivateFile, writePrivateFile } from "../store/private-files";

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
  rules: PrivateFileRules = {},
): { tokens: string[]; generated: boolean; file: string | undefined; unshown: boolean } {
  if (configured && configured.length > 0)
    return { tokens: configured, generated: false, file: undefined, unshown: false };
  const file = path.join(dataDir, TOKEN_FILE);
  ensurePrivateDir(dataDir, rules);
  // Never shown: a start that made it failed before its banner (its port in use, say).
  const unshown = readPrivateFile(path.join(dataDir, TOKEN_SHOWN_FILE), rules) === undefined;
  // A planted link or another user's file is refused here, not replaced: the operator should know.
  const existing = readPrivateFile(file, rules)?.trim() ?? "";
  if (existing.length >= 16) return { tokens: [existing], generated: false, file, unshown };
  const token = generateToken();
  writePrivateFile(
    file,
    `${token}
`,
    rules,
  );
  fs.rmSync(path.join(dataDir, TOKEN_SHOWN_FILE), { force: true });
  return { tokens: [token], generated: true, file, unshown: true };
}

/** Records that the kept token was shown in a banner: later starts say where it is, not what. */
export function markTokenShown(dataDir: string, rules: PrivateFileRules = {}): void {
  writePrivateFile(path.join(dataDir, TOKEN_SHOWN_FILE), "", rules);
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

/**
 * A stable, non-secret name for a token (for per-caller limits, usage and logs): an HMAC keyed by a
 * secret the relay keeps in its store (store.ts keptSecret), so that an id, which every token sees
 * in /v1/usage, tells nothing of its token: an unsalted hash let a weak token be guessed offline.
 */
export function tokenId(token: string, secret: string): string {
  return createHmac("sha256", secret).update(token).digest("hex").slice(0, 12);
}
