import { setTheme } from "@fluentui/web-components";
import { webDarkTheme, webLightTheme } from "@fluentui/tokens";

/*
 * The pane follows Office's theme: dark Fluent tokens when Office's theme is dark (Black or Dark
 * Gray), and Office's own body colours for the page, so the pane sits in Excel without a seam.
 * Before Office is ready, and wherever it has no theme to give (Excel on the web follows the
 * browser), the browser's `prefers-color-scheme` decides.
 */

/** Office.context.officeTheme; the code reads each part as possibly missing, as on older hosts. */
export type OfficeThemeColors = Office.OfficeTheme;

/** Office's theme, where the host gives one. */
export function officeTheme(): OfficeThemeColors | undefined {
  if (typeof Office === "undefined" || !Office.context) return undefined;
  const theme = Office.context.officeTheme;
  return theme ? theme : undefined;
}

/** Dark when Office says so; else when its background colour is dark; else as the browser prefers. */
export function isDark(theme: OfficeThemeColors | undefined, prefersDark: boolean): boolean {
  if (typeof theme?.isDarkTheme === "boolean") return theme.isDarkTheme;
  const background = theme?.bodyBackgroundColor && /^#([0-9a-f]{6})$/i.exec(theme.bodyBackgroundColor)?.[1];
  if (background) {
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(background.slice(i, i + 2), 16) / 255) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5;
  }
  return prefersDark;
}

/** Applies the theme to the page: Fluent's tokens, the native controls' colour scheme, Office's colours. */
export function applyTheme(theme: OfficeThemeColors | undefined, root: HTMLElement = document.documentElement): void {
  const prefersDark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  const dark = isDark(theme, prefersDark);
  setTheme(dark ? webDarkTheme : webLightTheme);
  root.dataset.theme = dark ? "dark" : "light";
  const colors: [string, string | undefined][] = [
    ["--surface", theme?.bodyBackgroundColor],
    ["--text", theme?.bodyForegroundColor],
  ];
  for (const [name, value] of colors) {
    if (value && /^#[0-9a-f]{3,8}$/i.test(value)) root.style.setProperty(name, value);
    else root.style.removeProperty(name);
  }
}
