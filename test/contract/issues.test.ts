import { dotPath } from "../../src/contract";

/*
 * Field paths as users read them, whatever the caller sends as a key. A key is the caller's, of any
 * length: a 7-MiB field name once made the relay answer 500 (a regular expression over it, once V8
 * had compiled it to machine code, overflowed the stack), so a key is cut to what an issue shows
 * before anything looks at it.
 */
describe("dot paths", () => {
  test("plain keys bare, others quoted, indexes in brackets", () => {
    expect(dotPath(["items", 3, "params", "bedrooms"])).toBe("items[3].params.bedrooms");
    expect(dotPath(["params", "a b"])).toBe('params["a b"]');
    expect(dotPath([""])).toBe('[""]');
  });

  test("a key of megabytes is cut to what an issue shows before it is looked at", () => {
    const huge = "x".repeat(7 * 1024 * 1024);
    const path = dotPath(["params", huge]);
    expect(path.length).toBeLessThan(250);
    expect(path.startsWith("params.xxxx")).toBe(true);
  });
});
