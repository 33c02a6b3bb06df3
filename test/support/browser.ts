import fs from "node:fs";
import path from "node:path";
import { Browser, BrowserContext, chromium } from "playwright-core";

/**
 * Headless Chromium (Debian's) for the browser tests, with office.js served from the npm copy of
 * @microsoft/office-js where pages ask Microsoft's CDN for it (the CDN is unreachable here; the
 * pages themselves keep the production URL).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OFFICE_CDN = "https://appsforoffice.microsoft.com/lib/1/hosted/";
const OFFICE_DIST = path.dirname(require.resolve("@microsoft/office-js/dist/office.js"));

export function chromiumAvailable(): boolean {
  return fs.existsSync(CHROMIUM);
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** Serves office.js (and the files it loads) from the npm package; anything else off this machine is refused. */
export async function routeOfficeJs(context: BrowserContext): Promise<void> {
  // Routes added later are tried first: the refusal goes in first, the CDN after it.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1|localhost)/, (route) => route.abort());
  await context.route(`${OFFICE_CDN}**`, async (route) => {
    const rel = decodeURIComponent(new URL(route.request().url()).pathname.replace("/lib/1/hosted/", ""));
    const file = path.join(OFFICE_DIST, rel);
    if (!file.startsWith(OFFICE_DIST) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: "" });
    return route.fulfill({ status: 200, contentType: "application/javascript", body: fs.readFileSync(file) });
  });
}

/**
 * What the functions' runtime finds in Excel and the shared runtime, stood in for in the page:
 * `CustomFunctions.Error` and its codes, and `OfficeRuntime.storage` holding the relay's URL and token
 * (empty without `settings`, as before the pane first saves them).
 */
export async function stubCustomFunctionsHost(
  context: BrowserContext,
  settings?: { url: string; token: string },
): Promise<void> {
  await context.addInitScript((settings) => {
    class ExcelError extends Error {
      constructor(
        public code: string,
        message?: string,
      ) {
        super(message);
      }
    }
    (window as unknown as Record<string, unknown>).CustomFunctions = {
      Error: ExcelError,
      ErrorCode: { invalidValue: "#VALUE!", notAvailable: "#N/A" },
    };
    const data: Record<string, string> = settings
      ? { "str.relayUrl": settings.url, "str.relayToken": settings.token }
      : {};
    (window as unknown as Record<string, unknown>).OfficeRuntime = {
      storage: {
        getItem: async (k: string) => data[k] ?? null,
        setItem: async (k: string, v: string) => void (data[k] = v),
        removeItem: async (k: string) => void delete data[k],
      },
    };
  }, settings ?? null);
}
