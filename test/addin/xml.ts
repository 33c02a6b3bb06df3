/**
 * Just enough XML to check a manifest's structure without a parser dependency: elements, attributes
 * and text; comments, the declaration and CDATA-free documents. Not a validator — xmllint and the XSDs
 * are — so malformed input only needs to fail loudly, not precisely.
 */
export interface XmlElement {
  /** Qualified name as written, e.g. "bt:Url". */
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    if (e[0] === "#")
      return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITIES[e] as string;
  });
}

export function parseXml(source: string): XmlElement {
  const token =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<\/([^\s>]+)\s*>|<([^\s/>]+)((?:\s+[^\s=]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
  const root: XmlElement = { name: "#document", attributes: {}, children: [], text: "" };
  const stack: XmlElement[] = [root];
  let consumed = 0;
  for (let m = token.exec(source); m; m = token.exec(source)) {
    if (m.index !== consumed)
      throw new Error(
        `XML: cannot read at offset ${consumed}: ${JSON.stringify(source.slice(consumed, consumed + 40))}`,
      );
    consumed = token.lastIndex;
    const [whole, closing, opening, attrText, selfClosing, text] = m;
    const top = stack[stack.length - 1] as XmlElement;
    if (whole.startsWith("<!--") || whole.startsWith("<?")) continue;
    if (text !== undefined) {
      top.text += decode(text);
    } else if (closing !== undefined) {
      if (top.name !== closing) throw new Error(`XML: </${closing}> closes <${top.name}>`);
      stack.pop();
    } else if (opening !== undefined) {
      const attributes: Record<string, string> = {};
      for (const a of (attrText ?? "").matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        attributes[a[1] as string] = decode(a[2] ?? a[3] ?? "");
      }
      const element: XmlElement = { name: opening, attributes, children: [], text: "" };
      top.children.push(element);
      if (!selfClosing) stack.push(element);
    }
  }
  if (consumed !== source.length) throw new Error(`XML: cannot read at offset ${consumed}`);
  if (stack.length !== 1) throw new Error(`XML: <${(stack[stack.length - 1] as XmlElement).name}> is never closed`);
  const [documentElement, ...rest] = root.children;
  if (!documentElement || rest.length > 0) throw new Error("XML: expected exactly one root element");
  return documentElement;
}

/** Every element below `element` (depth first), itself excluded. */
export function descendants(element: XmlElement): XmlElement[] {
  return element.children.flatMap((child) => [child, ...descendants(child)]);
}

/** Elements reached by a path of names from `element`, e.g. path(app, "VersionOverrides", "Resources", "bt:Urls", "bt:Url"). */
export function path(element: XmlElement, ...names: string[]): XmlElement[] {
  return names.reduce<XmlElement[]>(
    (found, name) => found.flatMap((e) => e.children.filter((c) => c.name === name)),
    [element],
  );
}

/** The single element at `names`; throws when there is none or more than one. */
export function one(element: XmlElement, ...names: string[]): XmlElement {
  const found = path(element, ...names);
  if (found.length !== 1) throw new Error(`expected one ${names.join("/")}, found ${found.length}`);
  return found[0] as XmlElement;
}
