import { Browser, BrowserContext, Page } from "playwright-core";
import { addinBuild } from "../support/addin-build";
import { chromiumAvailable, launchChromium } from "../support/browser";
import { TestRelay, startRelay } from "../support/relay";
import { reservedPort } from "../support/ports";

/**
 * The built pane, served by the relay, in headless Chromium under a stand-in for Office: office.js
 * is replaced by a script giving what an Excel host gives — Office.onReady, the requirement sets
 * it reports, `ui.openBrowserWindow` (recording each URL) and `officeTheme` — so the test decides
 * which host the pane runs in and watches what it does with links and colours.
 */
const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
if (!chromiumAvailable())
  test("browser tests need Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)", () =>
    undefined);

interface Host {
  /** Requirement sets isSetSupported says yes to. */
  sets: string[];
  /** Office.context.officeTheme; absent when undefined. */
  theme?: { isDarkTheme: boolean; bodyBackgroundColor: string; bodyForegroundColor: string };
}

/** office.js for one host: defined before the bundles run, as the real one is. */
function officeStub(host: Host): string {
  return `
    window.__opened = [];
    window.CustomFunctions = {
      Error: class extends Error { constructor(code, message) { super(message); this.code = code; } },
      ErrorCode: { invalidValue: "#VALUE!", notAvailable: "#N/A" },
      associate: function () {},
    };
    window.Office = {
      onReady: function (cb) {
        var info = { host: "Excel", platform: "PC" };
        return new Promise(function (resolve) { setTimeout(function () { if (cb) cb(info); resolve(info); }, 0); });
      },
      context: {
        requirements: { isSetSupported: function (set, version) { return ${JSON.stringify(host.sets)}.indexOf(set) >= 0 && version === "1.1"; } },
        ui: { openBrowserWindow: function (url) { window.__opened.push(url); } },
        ${host.theme ? `officeTheme: ${JSON.stringify(host.theme)},` : ""}
      },
    };`;
}

const DARK = { isDarkTheme: true, bodyBackgroundColor: "#262626", bodyForegroundColor: "#f0f0f0" };
const LIGHT = { isDarkTheme: false, bodyBackgroundColor: "#ffffff", bodyForegroundColor: "#242424" };

describeWithChromium("the pane inside an Office host: links and theme", () => {
  let t: TestRelay;
  let browser: Browser;
  let base: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const reserved = await reservedPort();
    const port = reserved.port;
    base = `http://127.0.0.1:${port}`;
    t = await startRelay({ RELAY_PUBLIC_URL: base }, { addinDir: await addinBuild() });
    await reserved.release();
    await t.relay.app.listen({ host: "127.0.0.1", port });
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await t?.close();
  });

  async function openPane(host: Host, colorScheme: "light" | "dark" = "light"): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 320, height: 700 }, colorScheme });
    contexts.push(context);
    await context.route(/^https?:\/\/(?!127\.0\.0\.1|localhost)/, (route) => route.abort());
    await context.route("https://appsforoffice.microsoft.com/**", (route) =>
      route.fulfill({ status: 200, contentType: "application/javascript", body: officeStub(host) }),
    );
    const page = await context.newPage();
    page.on("pageerror", (e) => process.stderr.write(`page error: ${e.message}\n`));
    await page.goto(`${base}/taskpane.html`);
    await page.locator("#tabs").waitFor({ state: "visible" });
    return page;
  }

  const colors = (page: Page) =>
    page.evaluate(() => ({
      theme: document.documentElement.dataset.theme,
      background: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.body).color,
      // A Fluent token the components draw with: webDarkTheme's is #292929, webLightTheme's #ffffff.
      fluentBackground: getComputedStyle(document.documentElement).getPropertyValue("--colorNeutralBackground1").trim(),
      scheme: getComputedStyle(document.documentElement).colorScheme,
    }));

  test("Office's dark theme: dark Fluent tokens, Office's own background and text colours", async () => {
    const page = await openPane({ sets: ["OpenBrowserWindowApi"], theme: DARK });
    expect(await colors(page)).toEqual({
      theme: "dark",
      background: "rgb(38, 38, 38)",
      text: "rgb(240, 240, 240)",
      fluentBackground: "#292929",
      scheme: "dark",
    });
  });

  test("Office's light theme wins over a dark browser", async () => {
    const page = await openPane({ sets: [], theme: LIGHT }, "dark");
    expect(await colors(page)).toMatchObject({
      theme: "light",
      background: "rgb(255, 255, 255)",
      fluentBackground: "#ffffff",
    });
  });

  test("no Office theme (Excel on the web): the browser's dark preference", async () => {
    const page = await openPane({ sets: [] }, "dark");
    expect(await colors(page)).toMatchObject({ theme: "dark", fluentBackground: "#292929" });
  });

  test("with OpenBrowserWindowApi 1.1, a link opens through Office.context.ui.openBrowserWindow, not in the pane", async () => {
    const page = await openPane({ sets: ["OpenBrowserWindowApi"], theme: DARK });
    const popups: Page[] = [];
    page.context().on("page", (p) => popups.push(p));
    await page.locator("#help-link").click();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as any).__opened)).toEqual([`${base}/help.html#functions`]);
    expect(popups).toEqual([]);
    expect(page.url()).toBe(`${base}/taskpane.html`);
  });

  test("a link the pane builds later (a comparable's listing) goes the same way", async () => {
    const page = await openPane({ sets: ["OpenBrowserWindowApi"] });
    await page.evaluate(() => {
      const a = document.createElement("a");
      a.id = "late";
      a.href = "https://listings.example.com/123";
      a.target = "_blank";
      a.textContent = "listing";
      document.getElementById("app")?.append(a);
    });
    await page.locator("#late").click();
    expect(await page.evaluate(() => (window as any).__opened)).toEqual(["https://listings.example.com/123"]);
  });

  test("without OpenBrowserWindowApi, the link opens in a new browser tab", async () => {
    const page = await openPane({ sets: [], theme: LIGHT });
    const popup = page.context().waitForEvent("page");
    await page.locator("#help-link").click();
    const opened = await popup;
    await opened.waitForLoadState();
    expect(opened.url()).toBe(`${base}/help.html#functions`);
    expect(await page.evaluate(() => (window as any).__opened)).toEqual([]);
    expect(page.url()).toBe(`${base}/taskpane.html`);
  });
});
