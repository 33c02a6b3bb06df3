/*
 * Links in the pane open in the user's browser. A task pane is a web view inside Excel: following
 * a link there replaces the pane, and `target="_blank"` opens a window Office may block or leave
 * without an address bar. Office's `openBrowserWindow` (OpenBrowserWindowApi 1.1) hands the URL to
 * the system's browser; where the host lacks it (Excel on the web, older builds), `window.open` in a
 * new tab is what the browser does best anyway.
 */

/** Opens `url` outside the pane: Office's browser window where the host has it, else a new tab. */
export function openInBrowser(url: string): void {
  if (typeof Office !== "undefined" && Office.context?.requirements?.isSetSupported("OpenBrowserWindowApi", "1.1")) {
    Office.context.ui.openBrowserWindow(url);
    return;
  }
  window.open(url, "_blank", "noopener,noreferrer");
}

/**
 * Sends every http(s) link the pane shows, now or later, through openInBrowser; links within the
 * page (`#…`) stay in it. One listener on the document, so views that build links need not know.
 */
export function openLinksInBrowser(root: Document = document): void {
  root.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!target || event.defaultPrevented) return;
    const href = (target as HTMLAnchorElement).href;
    if (!/^https?:/i.test(href) || (target.getAttribute("href") ?? "").startsWith("#")) return;
    event.preventDefault();
    openInBrowser(href);
  });
}
