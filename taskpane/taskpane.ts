/*
 * The task pane's entry point. It shares its page, and so its JavaScript runtime, with the custom
 * functions (manifest: one Runtime, lifetime long), which the functions bundle on the same page
 * registers; the two share one relay connection and one refresh gate (src/client/addin.ts).
 *
 * Only the Fluent UI components the pane uses are registered, to keep the bundle small.
 */
import "@fluentui/web-components/badge.js";
import "@fluentui/web-components/button.js";
import "@fluentui/web-components/field.js";
import "@fluentui/web-components/message-bar.js";
import "@fluentui/web-components/progress-bar.js";
import "@fluentui/web-components/radio.js";
import "@fluentui/web-components/radio-group.js";
import "@fluentui/web-components/tab.js";
import "@fluentui/web-components/tablist.js";
import "@fluentui/web-components/text-input.js";
import { addinConnection, memoryStorage, officeRuntimeStorage, refreshGate } from "../src/client";
import { officeExcelRun, officeUndoGroup } from "./excel/host";
import { openLinksInBrowser } from "./ui/links";
import { mountPane } from "./ui/pane";
import { applyTheme, officeTheme } from "./ui/theme";

// The browser's preference until Office says which theme it has.
applyTheme(undefined);

/** Wires the DOM once Office is ready; the behaviour lives in the modules the views call. */
Office.onReady(() => {
  applyTheme(officeTheme());
  openLinksInBrowser(document);
  void mountPane({
    connection: addinConnection(),
    storage: officeRuntimeStorage() ?? memoryStorage(),
    pageOrigin: typeof location === "undefined" ? undefined : location.origin,
    run: officeExcelRun,
    undoGroup: officeUndoGroup,
    gate: refreshGate,
  }).catch((error: unknown) => {
    const status = document.getElementById("app-status");
    if (status)
      status.textContent = `The pane could not start: ${error instanceof Error ? error.message : String(error)}`;
  });
});
