/**
 * Small helpers the pane's views share: element lookup, element building (text only through
 * textContent: what the service and the sheet send is never parsed as HTML), message bars, figure lists.
 */
type Child = Node | string | number | null | undefined | false;

export function byId<T extends HTMLElement = HTMLElement>(id: string, root: Document = document): T {
  const el = root.getElementById(id);
  if (!el) throw new Error(`the task pane page has no #${id}`);
  return el as T;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, string | boolean | undefined>,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Record<string, string | boolean | undefined>, ...children: Child[]): HTMLElement;
export function h(
  tag: string,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "number" ? String(child) : child);
  }
}

export function show(el: HTMLElement, visible: boolean): void {
  el.hidden = !visible;
}

/** Fluent buttons (and native controls) take `disabled` as a property. */
export function enable(el: HTMLElement, enabled: boolean): void {
  (el as HTMLElement & { disabled: boolean }).disabled = !enabled;
}

export type Intent = "info" | "success" | "warning" | "error";

/** A Fluent message bar; `role` alert for what needs attention now, status for what only informs. */
export function messageBar(intent: Intent, ...content: Child[]): HTMLElement {
  return h("fluent-message-bar", { intent, layout: "multiline", class: "bar" }, h("span", {}, ...content));
}

/** Replaces a region's content with one message bar (or nothing). */
export function say(region: HTMLElement, intent: Intent | undefined, ...content: Child[]): void {
  region.replaceChildren(...(intent ? [messageBar(intent, ...content)] : []));
}

/** A definition list of figures: label, value, and an optional note under the value. */
export function figures(
  dl: HTMLElement,
  rows: readonly (readonly [label: string, value: string, note?: string])[],
): void {
  dl.replaceChildren(
    ...rows.flatMap(([label, value, note]) => [
      h("dt", {}, label),
      h("dd", {}, h("span", { class: "figure" }, value), note ? h("span", { class: "figure-note" }, note) : null),
    ]),
  );
}

/** Runs `fn` at most once a frame: progress arrives line by line, the screen needs it once per paint. */
export function perFrame(fn: () => void): () => void {
  let queued = false;
  const frame =
    typeof requestAnimationFrame === "function" ? requestAnimationFrame : (cb: () => void) => setTimeout(cb, 16);
  return () => {
    if (queued) return;
    queued = true;
    frame(() => {
      queued = false;
      fn();
    });
  };
}

export function inputValue(el: HTMLElement): string {
  return String((el as HTMLElement & { value?: unknown }).value ?? "");
}

export function setInputValue(el: HTMLElement, value: string): void {
  (el as HTMLElement & { value: string }).value = value;
}
