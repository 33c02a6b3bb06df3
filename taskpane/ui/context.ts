import { RefreshGate, RelayClient, RelayConnection, SettingsStorage } from "../../src/client";
import { ExcelRun, UndoGroup } from "../excel/host";

/** What every view of the pane works with, and the few things a view asks of the whole pane. */
export interface PaneContext {
  connection: RelayConnection;
  storage: SettingsStorage;
  pageOrigin: string | undefined;
  run: ExcelRun;
  /** Opens one undo step for a command that writes in several syncs (a screening). */
  undoGroup: () => UndoGroup;
  gate: RefreshGate;
  /** The relay's mode as last seen: the header says "Simulated data" in sandbox mode. */
  setMode(mode: "sandbox" | "live"): void;
  showTab(tab: TabId): void;
  /** Something was spent: the Spend tab reloads when next shown. */
  spendChanged(): void;
}

export type TabId = "start" | "screen" | "refresh" | "comps" | "spend" | "settings";

/** The client for the saved settings; STR_NOT_CONFIGURED (shown like a cell's error, naming Settings) until a token is saved. */
export async function relayClient(ctx: PaneContext): Promise<RelayClient> {
  return (await ctx.connection.get()).client;
}

/** What a tab's module (screen-tab.ts, refresh-tab.ts) needs of the pane. */
export function tabDeps(ctx: PaneContext): {
  run: ExcelRun;
  undoGroup: () => UndoGroup;
  gate: RefreshGate;
  client: () => Promise<RelayClient>;
  setMode: (mode: "sandbox" | "live") => void;
  spendChanged: () => void;
} {
  return {
    run: ctx.run,
    undoGroup: () => ctx.undoGroup(),
    gate: ctx.gate,
    client: () => relayClient(ctx),
    setMode: (mode) => ctx.setMode(mode),
    spendChanged: () => ctx.spendChanged(),
  };
}
