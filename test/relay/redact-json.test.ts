import fc from "fast-check";
import { makeRedactor, redactParsed } from "../../src/relay/upstream/redact";
import { CallHandler, UpstreamResult } from "../../src/relay/upstream/upstream-call";

/**
 * A key written with JSON escapes passes a scan of the raw text and comes back plain once parsed.
 * For any key (slashes, pluses, underscores, quotes, letters beyond ASCII and the first plane) and any
 * JSON escaping of it, in a string, a key, an id or a header, what the call hands on holds none.
 */
const KEY_CHARS = [...'abcXYZ0129_-+/=.~:"\\é漢😀'];
const keyArb = fc.array(fc.constantFrom(...KEY_CHARS), { minLength: 8, maxLength: 40 }).map((cs) => cs.join(""));

const SHORT: Record<string, string> = { "/": "\\/", '"': '\\"', "\\": "\\\\" };
const hex = (ch: string, upper: boolean) =>
  Array.from({ length: ch.length }, (_, i) => {
    const h = ch.charCodeAt(i).toString(16).padStart(4, "0");
    return `\\u${upper ? h.toUpperCase() : h}`;
  }).join("");

/** One way of writing `ch` inside a JSON string, chosen by `how` (0–3). */
function written(ch: string, how: number): string {
  if (how === 0 && ch !== '"' && ch !== "\\") return ch;
  if (how === 1 && SHORT[ch]) return SHORT[ch];
  return hex(ch, how === 2);
}

const escapingArb = (key: string) =>
  fc
    .array(fc.integer({ min: 0, max: 3 }), { minLength: [...key].length, maxLength: [...key].length })
    .map((hows) => [...key].map((ch, i) => written(ch, hows[i] ?? 3)).join(""));

/** Where in the answer the escaped key is put: a value, a key, inside longer text, the id. */
function answerWith(escaped: string, place: number): string {
  const inner = [
    `{"success":true,"data":{"_id":"${escaped}","comparables":[{"name":"${escaped}"}]}}`,
    `{"success":true,"data":{"${escaped}":1},"warnings":["see ${escaped} here"]}`,
    `{"success":true,"data":{"_id":"a1","x":{"y":["${escaped}"]}},"${escaped}x":{"${escaped}":"${escaped}"}}`,
    // A JSON text inside a string: escaped twice over.
    `{"success":true,"data":{"debug":${JSON.stringify(`{"k":"${escaped}"}`)}}}`,
  ];
  return inner[place % inner.length] as string;
}

async function handOn(raw: string, key: string, headers: string[] = []): Promise<UpstreamResult> {
  return new Promise((resolve) => {
    const handler = new CallHandler(resolve, undefined, makeRedactor([key]), {
      writeBy: performance.now() + 60_000,
      endBy: performance.now() + 60_000,
    });
    handler.onConnect(() => undefined);
    handler.onRequestSent();
    handler.onHeaders(200, ["content-type", "application/json", ...headers]);
    handler.onData(Buffer.from(raw, "utf8"));
    handler.onComplete();
  });
}

/** Every string and key of a value, in any case. */
function holds(value: unknown, key: string): boolean {
  const lower = key.toLowerCase();
  const texts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") texts.push(v);
    else if (typeof v === "number") texts.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null)
      for (const [k, x] of Object.entries(v)) {
        texts.push(k);
        walk(x);
      }
  };
  walk(value);
  return texts.some((t) => t.toLowerCase().includes(lower));
}

describe("an upstream answer that writes the key with JSON escapes hands on no key", () => {
  test("any key, any escaping, anywhere in the answer or its headers", async () => {
    await fc.assert(
      fc.asyncProperty(
        keyArb.chain((key) => fc.tuple(fc.constant(key), escapingArb(key), fc.nat())),
        async ([key, escaped, place]) => {
          const raw = answerWith(escaped, place);
          // The stand-in's text is valid JSON that holds the key once parsed, or its escaped text where
          // it is escaped twice (the redaction is what removes it).
          const parsed: unknown = JSON.parse(raw);
          expect(holds(parsed, key) || holds(parsed, escaped)).toBe(true);
          const result = await handOn(raw, key, ["retry-after", key, `x-${key.replace(/[^\w-]/g, "")}`, key]);
          expect(result.kind).toBe("answer");
          expect(holds(result, key)).toBe(false);
          expect(holds(result, escaped)).toBe(false);
          expect(JSON.stringify(result)).not.toContain(JSON.stringify(key).slice(1, -1));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("an escaped key in a field name, a warning and the id is replaced, the rest of the answer kept", async () => {
    const key = "sk_live/SECRET+key_0123";
    const escaped = key.replace(/_/g, "\\u005f").replace(/\//g, "\\/");
    const raw = `{"success":true,"data":{"_id":"${escaped}","beds":3,"${escaped}":1},"warnings":["echo ${escaped}"]}`;
    const result = await handOn(raw, key);
    expect(result).toMatchObject({
      kind: "answer",
      body: { success: true, data: { _id: "[redacted]", beds: 3, "[redacted]": 1 }, warnings: ["echo [redacted]"] },
    });
  });

  test("a parsed value is redacted in its strings, keys and numbers, whatever the raw scan did", () => {
    const redact = makeRedactor(["s3cr3t/key"]);
    expect(redactParsed({ "s3cr3t/key": ["a s3cr3t/KEY b", { n: 1 }], z: null, t: true }, redact)).toEqual({
      "[redacted]": ["a [redacted] b", { n: 1 }],
      z: null,
      t: true,
    });
    expect(redactParsed(12345678, makeRedactor(["12345678"]))).toBe("[redacted]");
  });
});
