import { describeError } from "../pane-error";
import { ConnectionReport, SettingsDeps, saveSettingsForm, savedSettings, testConnection } from "../settings";
import { usd } from "../spend";
import { PaneContext } from "./context";
import { byId, enable, figures, h, inputValue, say, setInputValue } from "./dom";

/**
 * The Settings tab: relay URL and token (a password field; a saved token is never shown back, only
 * said to be there), Save, and Test connection, which shows mode, version, today's spend and budget
 * (and the token's own budget, when it has one).
 * With no token yet it is the first thing the pane shows, saying where the token comes from. Save
 * tests the form's settings first and keeps them only if the relay answers: a typo or a relay that
 * is down never replaces settings that work.
 */
export async function mountSettings(ctx: PaneContext): Promise<{ hasToken: boolean }> {
  const el = settingsElements();
  const deps: SettingsDeps = { connection: ctx.connection, storage: ctx.storage, pageOrigin: ctx.pageOrigin };
  const form = () => ({ relayUrl: inputValue(el.url), token: inputValue(el.token) });
  const test = () => showConnectionTest(ctx, el, () => testConnection(deps, form()));

  el.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await testThenSave(el, test, () => saveSettingsForm(deps, form()));
  });
  // A Fluent button is not a native submit button: it submits its form by itself only when form-associated, so click does it too.
  el.save.addEventListener("click", (event) => {
    event.preventDefault();
    el.form.requestSubmit();
  });
  el.test.addEventListener("click", async () => {
    say(el.message, undefined);
    const failed = await test();
    if (failed !== undefined) say(el.message, "error", describeError(failed));
  });

  const saved = await savedSettings(deps);
  setInputValue(el.url, saved.relayUrl);
  showSaved(el, saved.hasToken);
  return { hasToken: saved.hasToken };
}

type SettingsElements = ReturnType<typeof settingsElements>;

function settingsElements() {
  return {
    firstRun: byId("settings-first-run"),
    form: byId<HTMLFormElement>("settings-form"),
    url: byId("settings-url"),
    token: byId("settings-token"),
    tokenHint: byId("settings-token-hint"),
    save: byId("settings-save"),
    test: byId("settings-test"),
    result: byId("settings-result"),
    message: byId("settings-message"),
  };
}

/** The token field's hint, and, with no token saved, the first-run note saying where the relay prints it. */
function showSaved(el: SettingsElements, hasToken: boolean): void {
  el.tokenHint.textContent = hasToken
    ? "A token is saved. Leave this blank to keep it."
    : "Paste the relay token here.";
  say(
    el.firstRun,
    hasToken ? undefined : "info",
    h("strong", {}, "Connect to your relay. "),
    "The relay keeps the service's key and your spending budget; it gives you an address and a token. Paste both below, then Save: the connection is tested before anything is kept.",
  );
}

/** Tests the form's settings; only if the relay answers, saves them and clears the token field. */
async function testThenSave(
  el: SettingsElements,
  test: () => Promise<unknown>,
  save: () => Promise<unknown>,
): Promise<void> {
  say(el.message, undefined);
  enable(el.save, false);
  try {
    const failed = await test();
    if (failed !== undefined)
      return say(
        el.message,
        "error",
        "Not saved: the connection test failed, so the settings in use stay as they were. ",
        describeError(failed),
      );
    await save();
    setInputValue(el.token, "");
    showSaved(el, true);
    say(el.message, "success", "Saved. The STR functions use these settings from their next calculation.");
  } catch (error) {
    say(el.message, "error", describeError(error));
  } finally {
    enable(el.save, true);
  }
}

/** Shows the connection's mode, version, spend and budget; resolves with what failed, if anything. */
async function showConnectionTest(
  ctx: PaneContext,
  el: SettingsElements,
  test: () => Promise<ConnectionReport>,
): Promise<unknown> {
  el.result.replaceChildren();
  enable(el.test, false);
  try {
    const report = await test();
    ctx.setMode(report.mode);
    const list = h("dl", { class: "figures" });
    figures(list, connectionFigures(report));
    el.result.replaceChildren(h("p", { class: "ok" }, "Connected."), list);
    return undefined;
  } catch (error) {
    return error ?? new Error("the connection test failed");
  } finally {
    enable(el.test, true);
  }
}

function connectionFigures(report: ConnectionReport): (readonly [label: string, value: string, note?: string])[] {
  return [
    [
      "Mode",
      report.mode === "sandbox" ? "Sandbox" : "Live",
      report.mode === "sandbox"
        ? "Simulated data: no real analyses, nothing billed"
        : "Real analyses, billed by the service",
    ],
    ["Relay version", report.version],
    ["Today's spend", usd(report.todayUSD)],
    ["Budget", usd(report.budgetUSD), `${usd(report.remainingUSD)} left today`],
    ...(report.own
      ? [["Your budget", usd(report.own.budgetUSD), `${usd(report.own.remainingUSD)} left today`] as const]
      : []),
  ];
}
