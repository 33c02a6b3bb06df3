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

/**
 * A Fluent message bar with its intent's icon, as Fluent's MessageBar draws one (the web component
 * leaves the icon slot to the page): in Fluent's light theme a warning's and an error's backgrounds
 * are nearly the same colour, so the icon's shape and colour, and its name for screen readers, tell them apart.
 */
export function messageBar(intent: Intent, ...content: Child[]): HTMLElement {
  return h(
    "fluent-message-bar",
    { intent, layout: "multiline", class: "bar", "data-intent": intent },
    intentIcon(intent),
    h("span", {}, ...content),
  );
}

/**
 * Filled 20-px glyphs in the manner of Fluent's Info, CheckmarkCircle, Warning and DismissCircle
 * icons; the mark inside each is cut out (evenodd), so it shows the bar's own background.
 */
const INTENT_ICONS: Readonly<Record<Intent, { name: string; path: string }>> = {
  info: {
    name: "Information",
    path: "M10 2a8 8 0 1 1 0 16a8 8 0 0 1 0-16zM9.25 8.75h1.5v5.5h-1.5zM10 5.25a1 1 0 1 1 0 2a1 1 0 0 1 0-2z",
  },
  success: {
    name: "Success",
    path: "M10 2a8 8 0 1 1 0 16a8 8 0 0 1 0-16zM13.47 6.97l1.06 1.06-5.73 5.73-3.33-3.33 1.06-1.06 2.27 2.27z",
  },
  warning: {
    name: "Warning",
    path: "M8.7 2.75a1.5 1.5 0 0 1 2.6 0l6.9 12.5a1.5 1.5 0 0 1-1.3 2.25H3.1a1.5 1.5 0 0 1-1.3-2.25zM9.25 7h1.5v5h-1.5zM10 13.25a1 1 0 1 1 0 2a1 1 0 0 1 0-2z",
  },
  error: {
    name: "Error",
    path: "M10 2a8 8 0 1 1 0 16a8 8 0 0 1 0-16zM10 8.94l2.47-2.47 1.06 1.06L11.06 10l2.47 2.47-1.06 1.06L10 11.06l-2.47 2.47-1.06-1.06L8.94 10 6.47 7.53l1.06-1.06z",
  },
};

function intentIcon(intent: Intent): HTMLElement {
  const icon = INTENT_ICONS[intent];
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", icon.path);
  path.setAttribute("fill-rule", "evenodd");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  // The intent's name is read before the message: "Warning: …".
  return h(
    "span",
    { slot: "icon", class: `bar__icon bar__icon--${intent}` },
    svg,
    h("span", { class: "visually-hidden" }, `${icon.name}:`),
  );
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

/**
 * Fluent's text input puts the focus on an <input> in its shadow root, named only by text slotted
 * into the text input itself: a fluent-field's label names the host, and screen readers met an
 * unnamed edit field (axe-core: label; Chromium's accessibility tree: a textbox with no name). Each
 * field's label text goes into its text input as well, where the input's own label (hidden by
 * CSS, ::part(label)) names it.
 */
export function nameTextInputs(root: ParentNode = document): void {
  for (const field of root.querySelectorAll("fluent-field")) {
    const label = field.querySelector(':scope > [slot="label"]');
    const input = field.querySelector(':scope > fluent-text-input[slot="input"]');
    const text = label?.textContent?.trim();
    if (!input || !text || input.querySelector(":scope > .field-name")) continue;
    input.append(h("span", { class: "field-name" }, text));
  }
}
