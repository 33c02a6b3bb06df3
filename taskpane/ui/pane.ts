import { RefreshGate, RelayConnection, SettingsStorage } from "../../src/client";
import { ExcelRun, UndoGroup, ungrouped } from "../excel/host";
import { mountComps } from "./comps-view";
import { PaneContext, TabId } from "./context";
import { byId, nameTextInputs, show } from "./dom";
import { mountRefresh } from "./refresh-view";
import { mountScreen } from "./screen-view";
import { mountSettings } from "./settings-view";
import { mountSpend } from "./spend-view";
import { mountStart } from "./start-view";

/**
 * The whole pane wired to its page: the tabs, each tab's view, and the little they share (the
 * relay's mode in the header, Spend reloading after a run). Takes its collaborators, so a test page
 * can hand it a stand-in workbook.
 */
export async function mountPane(deps: {
  connection: RelayConnection;
  storage: SettingsStorage;
  pageOrigin: string | undefined;
  run: ExcelRun;
  /** @default each sync its own undo step */
  undoGroup?: () => UndoGroup;
  gate: RefreshGate;
}): Promise<void> {
  const tabs = byId<HTMLElement & { activeid: string }>("tabs");
  const badge = byId("mode-badge");
  let spendStale = true;
  const ctx: PaneContext = {
    ...deps,
    undoGroup: deps.undoGroup ?? (() => ungrouped(deps.run)),
    setMode: (mode) => show(badge, mode === "sandbox"),
    showTab: (tab: TabId) => {
      tabs.activeid = `tab-${tab}`;
    },
    spendChanged: () => {
      spendStale = true;
    },
  };

  nameTextInputs();
  mountStart(ctx);
  mountScreen(ctx);
  mountRefresh(ctx);
  mountComps(ctx);
  const spend = mountSpend(ctx);
  const { hasToken } = await mountSettings(ctx);
  // A token saved in Settings also makes Spend worth loading again.
  deps.connection.onChange(() => ctx.spendChanged());

  tabs.addEventListener("change", () => {
    if (tabs.activeid === "tab-spend" && spendStale) {
      spendStale = false;
      void spend.reload();
    }
  });
  show(byId("app-status"), false);
  show(tabs, true);
  ctx.showTab(hasToken ? "start" : "settings");
}
