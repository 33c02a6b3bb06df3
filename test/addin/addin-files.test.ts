import { manifestFor } from "../../src/relay/addin-files";

const XML = `<a DefaultValue="https://localhost:3000/taskpane.html"/><b>https://localhost:3000</b>`;

describe("manifestFor moves the dev server's URLs to RELAY_PUBLIC_URL", () => {
  test("every https://localhost:3000 URL, paths kept", () => {
    expect(manifestFor(XML, "https://relay.example.com")).toBe(
      `<a DefaultValue="https://relay.example.com/taskpane.html"/><b>https://relay.example.com</b>`,
    );
  });

  test("a trailing slash on the public URL does not double the slash", () => {
    expect(manifestFor(XML, "https://relay.example.com/")).toBe(manifestFor(XML, "https://relay.example.com"));
    expect(manifestFor(XML, "https://relay.example.com///")).toBe(manifestFor(XML, "https://relay.example.com"));
  });

  test("a public URL with a path prefixes every URL with it", () => {
    expect(manifestFor(XML, "https://example.com/str/")).toBe(
      `<a DefaultValue="https://example.com/str/taskpane.html"/><b>https://example.com/str</b>`,
    );
  });

  test("a port on the public URL is kept", () => {
    expect(manifestFor(XML, "https://relay.internal:8443")).toContain("https://relay.internal:8443/taskpane.html");
  });

  test("http is allowed for this machine only", () => {
    expect(manifestFor(XML, "http://localhost:8787")).toContain("http://localhost:8787/taskpane.html");
    expect(manifestFor(XML, "http://127.0.0.1:8787")).toContain("http://127.0.0.1:8787/taskpane.html");
  });

  test("only the dev server's origin moves: other ports, hosts and URLs stay", () => {
    const others = `<x a="https://localhost:30001/a" b="https://localhost:3000.example.com/b" c="http://localhost:3000/c" d="https://go.microsoft.com/fwlink/?LinkId=1"/>`;
    expect(manifestFor(others, "https://relay.example.com")).toBe(others);
  });

  test("characters XML reserves are escaped in the public URL's path", () => {
    expect(manifestFor(XML, "https://example.com/a&b'/")).toContain(
      `DefaultValue="https://example.com/a&amp;b&apos;/taskpane.html"`,
    );
  });

  test("text without the dev URL comes back unchanged", () => {
    expect(manifestFor("<a/>", "https://relay.example.com")).toBe("<a/>");
  });
});

describe("manifestFor refuses a public URL Office could not load the add-in from", () => {
  test.each([
    ["http on another host", "http://relay.example.com"],
    ["not a URL", "relay.example.com"],
    ["empty", ""],
    ["another scheme", "ftp://relay.example.com"],
    ["a query", "https://relay.example.com/?x=1"],
    ["a fragment", "https://relay.example.com/#top"],
    ["credentials", "https://user:pw@relay.example.com"],
  ])("%s", (_, url) => {
    expect(() => manifestFor(XML, url)).toThrow(
      /^RELAY_PUBLIC_URL must be an absolute https URL .*\(http only for localhost or 127\.0\.0\.1\); got /,
    );
  });

  test("the message shows the value received", () => {
    expect(() => manifestFor(XML, "http://relay.example.com")).toThrow('got "http://relay.example.com"');
  });
});
