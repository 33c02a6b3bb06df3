import { RunResult, ScreeningProgress } from "../screen";
import { usd } from "../spend";
import { Intent, perFrame } from "./dom";

/** "120 of 300 rows done · 3 cached · 2 failed · 1 held back · 5 with warnings · $24.00 spent". */
export function progressText(p: ScreeningProgress): string {
  const held = p.held ? ` · ${p.held} held back` : "";
  return `${p.done.toLocaleString("en-US")} of ${p.total.toLocaleString("en-US")} rows done · ${p.cached} cached · ${p.failed} failed${held} · ${p.warnings} with warnings · ${usd(p.spentUSD)} spent`;
}

/**
 * A progress bar and its counts. The bar moves every frame; the counts, a polite live region, change
 * at most once a second so a screen reader is not flooded with one announcement per row.
 */
export function progressBinding(
  bar: HTMLElement,
  text: HTMLElement,
): { update(p: ScreeningProgress): void; reset(total: number): void } {
  let latest: ScreeningProgress | undefined;
  let lastText = 0;
  const paint = perFrame(() => {
    if (!latest) return;
    const share = latest.total > 0 ? Math.round((latest.done / latest.total) * 1000) / 10 : 100;
    bar.setAttribute("value", String(share));
    bar.setAttribute("aria-valuetext", `${latest.done} of ${latest.total} rows`);
    const now = Date.now();
    if (now - lastText >= 1000 || latest.done === latest.total) {
      lastText = now;
      text.textContent = progressText(latest);
    }
  });
  return {
    update(p) {
      latest = p;
      paint();
    },
    reset(total) {
      latest = { total, done: 0, cached: 0, failed: 0, held: 0, warnings: 0, spentUSD: 0, stopped: 0 };
      lastText = 0;
      bar.setAttribute("value", "0");
      text.textContent = progressText(latest);
    },
  };
}

/** How a finished run reads: what happened, and what to do about rows that did not make it. */
export function outcomeMessage(result: RunResult, what: string): { intent: Intent; text: string } {
  const p = result.progress;
  const counts = progressText(p);
  if (result.writeError !== undefined)
    return { intent: "error", text: `Stopped: the results could not be written to the sheet. ${counts}.` };
  if (result.stopped) {
    return {
      intent: "warning",
      text: `Cancelled: nothing more was sent. ${counts}. The ${p.stopped.toLocaleString("en-US")} ${p.stopped === 1 ? "row" : "rows"} not reached say "Stopped"; ${what} again to finish them (rows already answered come from the cache, free).`,
    };
  }
  if (p.failed > 0)
    return {
      intent: "warning",
      text: `Done with ${p.failed} failed ${p.failed === 1 ? "row" : "rows"}: each says why in its Warnings cell. ${counts}.`,
    };
  // Rows held back as unusual are the user's to check, not a failure of the run.
  const held = p.held
    ? ` ${p.held} unusual ${p.held === 1 ? "row was" : "rows were"} held back, not sent: ${p.held === 1 ? "its" : "each"} Warnings cell says why.`
    : "";
  return { intent: "success", text: `Done. ${counts}.${held}` };
}
