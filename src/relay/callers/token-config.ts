import { z } from "zod";

/*
 * The callers an operator names beside RELAY_TOKENS: each token may carry a label
 * (`RELAY_TOKENS=alice:rt_…,bob:rt_…`, the label before the first `:`), and a labelled token may
 * carry its own daily budget (`RELAY_TOKEN_BUDGETS_USD_PER_DAY=alice:20,bob:5`). A token without a
 * label is read as before. Nothing here echoes a token, or a part of one, in an error.
 */

export interface ConfiguredToken {
  token: string;
  label: string | undefined;
}

/** What the relay knows of one configured token (its id is made from it: caller.ts). */
export interface CallerRule {
  token: string;
  label: string | undefined;
  /** Its own daily budget on top of the relay's; undefined: only the relay's. */
  budgetUSDPerDay: number | undefined;
}

/** Short enough for a table cell, and plain enough to be read in a log or a URL. */
export const LABEL_RULE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
const LABEL_TEXT = "1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit";

const entriesOf = (text: string) =>
  text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** RELAY_TOKENS: `[label:]token` entries, comma-separated. */
export function tokenList(text: string, ctx: z.RefinementCtx): ConfiguredToken[] {
  const entries = entriesOf(text);
  if (entries.length === 0) ctx.addIssue({ code: "custom", message: "must hold at least one token" });
  const found: ConfiguredToken[] = [];
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(":");
    const label = colon < 0 ? undefined : entry.slice(0, colon);
    const token = colon < 0 ? entry : entry.slice(colon + 1);
    const problem =
      (label !== undefined && !LABEL_RULE.test(label)
        ? `label (before the first ':') must be ${LABEL_TEXT}; a token holding ':' must be written label:token`
        : undefined) ??
      (token.length < 16 ? "must be at least 16 characters" : undefined) ??
      (/^[\x21-\x7e]+$/.test(token) ? undefined : "must be printable ASCII without spaces") ??
      sameAs(found, (f) => f.token === token, "is the same token as") ??
      (label === undefined ? undefined : sameAs(found, (f) => f.label === label, "has the same label as"));
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: [i] });
    found.push({ token, label });
  });
  return found;
}

function sameAs(found: ConfiguredToken[], same: (f: ConfiguredToken) => boolean, words: string): string | undefined {
  const at = found.findIndex(same);
  return at < 0 ? undefined : `${words} RELAY_TOKENS[${at}]: each caller has one token and one label`;
}

/** RELAY_TOKEN_BUDGETS_USD_PER_DAY: `label:USD` entries, comma-separated. */
export function budgetList(text: string, ctx: z.RefinementCtx): Map<string, number> {
  const budgets = new Map<string, number>();
  entriesOf(text).forEach((entry, i) => {
    const match = /^([^:]*):\s*(.*)$/.exec(entry);
    const label = match?.[1]?.trim() ?? "";
    const amount = Number(match?.[2]);
    const problem = !match
      ? "must be label:USD, such as alice:20"
      : !LABEL_RULE.test(label)
        ? `must start with a token's label (${LABEL_TEXT})`
        : match[2] === "" || !Number.isFinite(amount) || amount < 0
          ? "must give a number of at least 0 USD after the label"
          : budgets.has(label)
            ? "names a label given a budget already"
            : undefined;
    if (problem) ctx.addIssue({ code: "custom", message: `${problem}; got ${JSON.stringify(entry)}`, path: [i] });
    else budgets.set(label, amount);
  });
  return budgets;
}

/**
 * The rules by token id, with each budget matched to its label. Problems are returned, not thrown,
 * so that the start lists them with every other bad variable.
 */
export function callerRules(
  tokens: ConfiguredToken[] | undefined,
  budgets: Map<string, number> | undefined,
): { rules: CallerRule[]; problems: string[] } {
  const problems: string[] = [];
  const labels = new Set((tokens ?? []).map((t) => t.label).filter((l) => l !== undefined));
  for (const label of budgets?.keys() ?? []) {
    if (!labels.has(label))
      problems.push(
        tokens === undefined
          ? `RELAY_TOKEN_BUDGETS_USD_PER_DAY needs labelled tokens in RELAY_TOKENS (label:token): the generated token has no label; got a budget for ${JSON.stringify(label)}`
          : `RELAY_TOKEN_BUDGETS_USD_PER_DAY gives a budget to ${JSON.stringify(label)}, but no token in RELAY_TOKENS has that label (write it as ${label}:<token>)`,
      );
  }
  const rules = (tokens ?? []).map((t) => ({
    token: t.token,
    label: t.label,
    budgetUSDPerDay: t.label === undefined ? undefined : budgets?.get(t.label),
  }));
  return { rules, problems };
}
