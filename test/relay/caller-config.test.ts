import { createHash } from "node:crypto";
import { ConfigError, loadConfig } from "../../src/relay/config";
import { Callers } from "../../src/relay/callers/caller";
import { tokenId } from "../../src/relay/callers/tokens";

const ALICE = "rt_alice_0123456789abcdef";
const BOB = "rt_bob_0123456789abcdef01";
/** The key of caller ids, as a relay's store keeps it. */
const SECRET = "caller-id-secret-for-tests";
const id = (token: string) => tokenId(token, SECRET);

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("token labels and per-token budgets beside RELAY_TOKENS", () => {
  test("label:token names a caller; a budget per label gives that token its own daily cap", () => {
    const c = loadConfig({
      RELAY_TOKENS: `alice:${ALICE}, bob:${BOB}`,
      RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice:20, bob:5.5",
    });
    expect(c.tokens).toEqual([ALICE, BOB]);
    expect(c.callers).toEqual([
      { token: ALICE, label: "alice", budgetUSDPerDay: 20 },
      { token: BOB, label: "bob", budgetUSDPerDay: 5.5 },
    ]);
    const callers = new Callers(c.callers, SECRET);
    expect(callers.of(ALICE)).toEqual({ id: id(ALICE), label: "alice" });
    expect(callers.budgetCentsOf(id(BOB))).toBe(550);
  });

  test("the old format keeps working: tokens without labels, no budgets of their own", () => {
    const c = loadConfig({ RELAY_TOKENS: `${ALICE},${BOB}` });
    expect(c.tokens).toEqual([ALICE, BOB]);
    expect(c.callers.map((r) => r.label)).toEqual([undefined, undefined]);
    const callers = new Callers(c.callers, SECRET);
    expect(callers.of(BOB)).toEqual({ id: id(BOB) });
    expect(callers.budgetCentsOf(id(BOB))).toBeUndefined();
  });

  test("labelled and unlabelled tokens mix; only labelled ones can have a budget", () => {
    const c = loadConfig({ RELAY_TOKENS: `${ALICE},bob:${BOB}`, RELAY_TOKEN_BUDGETS_USD_PER_DAY: "bob:0" });
    expect(c.callers).toEqual([
      { token: ALICE, label: undefined, budgetUSDPerDay: undefined },
      { token: BOB, label: "bob", budgetUSDPerDay: 0 },
    ]);
  });

  test("ids are keyed by the relay's secret: another secret, other ids, and none is a plain hash of its token", () => {
    const c = loadConfig({ RELAY_TOKENS: ALICE });
    const ids = [new Callers(c.callers, SECRET).idOf(ALICE), new Callers(c.callers, "another-secret").idOf(ALICE)];
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids).not.toContain(createHash("sha256").update(ALICE).digest("hex").slice(0, 12));
    expect(ids[0]).toMatch(/^[0-9a-f]{12}$/);
  });

  test("the generated token (RELAY_TOKENS unset) is a caller without label or budget", () => {
    const c = loadConfig({});
    expect(c.callers).toEqual([]);
    expect(new Callers(c.callers, SECRET).of("rt_generated_0123456789")).toEqual({ id: id("rt_generated_0123456789") });
  });

  test("every bad entry is named by its place, and no token (nor a part of one) is echoed", () => {
    const message = problemsOf({
      RELAY_TOKENS: `al ice:${ALICE},bob:short,carol:${BOB},dave:${BOB},carol:rt_another_token_0123456`,
    });
    expect(message).toMatch(/RELAY_TOKENS\[0\] label \(before the first ':'\) must be 1 to 32 letters/);
    expect(message).toMatch(/RELAY_TOKENS\[1\] must be at least 16 characters/);
    expect(message).toMatch(/RELAY_TOKENS\[3\] is the same token as RELAY_TOKENS\[2\]/);
    expect(message).toMatch(/RELAY_TOKENS\[4\] has the same label as RELAY_TOKENS\[2\]/);
    for (const secret of [ALICE, BOB, "short", "rt_another", "al ice"]) expect(message).not.toContain(secret);
  });

  test("budgets: label:USD each, a number of at least 0, each label once, and a label RELAY_TOKENS gives", () => {
    const message = problemsOf({
      RELAY_TOKENS: `alice:${ALICE},bob:${BOB}`,
      RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice,bob:-1,bob:abc,alice:3,alice:4,carol:2",
    });
    expect(message).toMatch(/RELAY_TOKEN_BUDGETS_USD_PER_DAY\[0\] must be label:USD, such as alice:20; got "alice"/);
    expect(message).toMatch(/RELAY_TOKEN_BUDGETS_USD_PER_DAY\[1\] must give a number of at least 0 USD.*got "bob:-1"/);
    expect(message).toMatch(/RELAY_TOKEN_BUDGETS_USD_PER_DAY\[2\] must give a number.*got "bob:abc"/);
    expect(message).toMatch(/RELAY_TOKEN_BUDGETS_USD_PER_DAY\[4\] names a label given a budget already; got "alice:4"/);
    // Checked against the tokens only once both variables read cleanly.
    expect(problemsOf({ RELAY_TOKENS: `alice:${ALICE}`, RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice:3,carol:2" })).toMatch(
      /RELAY_TOKEN_BUDGETS_USD_PER_DAY gives a budget to "carol", but no token in RELAY_TOKENS has that label/,
    );
  });

  test("budgets without configured tokens: the generated token has no label to give a budget to", () => {
    expect(problemsOf({ RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice:3" })).toMatch(
      /RELAY_TOKEN_BUDGETS_USD_PER_DAY needs labelled tokens in RELAY_TOKENS \(label:token\)/,
    );
  });
});
