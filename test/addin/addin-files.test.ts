import { addinIdFor, manifestFor, withPublicUrls } from "../../src/relay/addin/addin-files";

const XML = `<a DefaultValue="https://localhost:3000/taskpane.html"/><b>https://localhost:3000</b>`;

describe("withPublicUrls moves the dev server's URLs to RELAY_PUBLIC_URL", () => {
  test("every https://localhost:3000 URL, paths kept", () => {
    expect(withPublicUrls(XML, "https://relay.example.com")).toBe(
      `<a DefaultValue="https://relay.example.com/taskpane.html"/><b>https://relay.example.com</b>`,
    );
  });

  test("a trailing slash on the public URL does not double the slash", () => {
    expect(withPublicUrls(XML, "https://relay.example.com/")).toBe(withPublicUrls(XML, "https://relay.example.com"));
    expect(withPublicUrls(XML, "https://relay.example.com///")).toBe(withPublicUrls(XML, "https://relay.example.com"));
  });

  test("a public URL with a path prefixes every URL with it", () => {
    expect(withPublicUrls(XML, "https://example.com/str/")).toBe(
      `<a DefaultValue="https://example.com/str/taskpane.html"/><b>https://example.com/str</b>`,
    );
  });

  test("a port on the public URL is kept", () => {
    expect(withPublicUrls(XML, "https://relay.internal:8443")).toContain("https://relay.internal:8443/taskpane.html");
  });

  test("http is allowed for this machine only", () => {
    expect(withPublicUrls(XML, "http://localhost:8787")).toContain("http://localhost:8787/taskpane.html");
    expect(withPublicUrls(XML, "http://127.0.0.1:8787")).toContain("http://127.0.0.1:8787/taskpane.html");
  });

  test("only the dev server's origin moves: other ports, hosts and URLs stay", () => {
    const others = `<x a="https://localhost:30001/a" b="https://localhost:3000.example.com/b" c="http://localhost:3000/c" d="https://go.microsoft.com/fwlink/?LinkId=1"/>`;
    expect(withPublicUrls(others, "https://relay.example.com")).toBe(others);
  });

  test("characters XML reserves are escaped in the public URL's path", () => {
    expect(withPublicUrls(XML, "https://example.com/a&b'/")).toContain(
      `DefaultValue="https://example.com/a&amp;b&apos;/taskpane.html"`,
    );
  });

  test("text without the dev URL comes back unchanged", () => {
    expect(withPublicUrls("<a/>", "https://relay.example.com")).toBe("<a/>");
  });
});

describe("withPublicUrls refuses a public URL Office could not load the add-in from", () => {
  test.each([
    ["http on another host", "http://relay.example.com"],
    ["not a URL", "relay.example.com"],
    ["empty", ""],
    ["another scheme", "ftp://relay.example.com"],
    ["a query", "https://relay.example.com/?x=1"],
    ["a fragment", "https://relay.example.com/#top"],
    ["credentials", "https://user:pw@relay.example.com"],
  ])("%s", (_, url) => {
    expect(() => withPublicUrls(XML, url)).toThrow(
      /^RELAY_PUBLIC_URL must be an absolute https URL .*\(http only for localhost or 127\.0\.0\.1\); got /,
    );
  });

  test("the message shows the value received", () => {
    expect(() => withPublicUrls(XML, "http://relay.example.com")).toThrow('got "http://relay.example.com"');
  });
});

describe("one add-in per deployment: the served manifest's Id and name", () => {
  const SOURCE = `<Id>39acac6d-0984-4a68-83e8-9c01a4d36dbe</Id>
<DisplayName DefaultValue="STR Underwriting (dev)" />
<bt:String id="Group.Label" DefaultValue="STR Underwriting (dev)" />
<bt:Url id="Taskpane.Url" DefaultValue="https://localhost:3000/taskpane.html" />`;
  const idOf = (xml: string) => /<Id>([^<]*)<\/Id>/.exec(xml)?.[1];
  const nameOf = (xml: string) => /<DisplayName DefaultValue="([^"]*)"/.exec(xml)?.[1];
  const groupOf = (xml: string) => /id="Group\.Label" DefaultValue="([^"]*)"/.exec(xml)?.[1];
  const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test("the Id is a version-5 UUID of the public URL: the same URL always gets the same Id", () => {
    const id = idOf(manifestFor(SOURCE, "https://relay.example.com"));
    expect(id).toMatch(UUID_V5);
    expect(id).not.toBe("39acac6d-0984-4a68-83e8-9c01a4d36dbe");
    expect(idOf(manifestFor(SOURCE, "https://relay.example.com"))).toBe(id);
    // Spellings of one URL are one deployment.
    expect(idOf(manifestFor(SOURCE, "https://RELAY.example.com/"))).toBe(id);
    expect(idOf(manifestFor(SOURCE, "https://relay.example.com:443"))).toBe(id);
  });

  test("another public URL (host, port or path) gets another Id", () => {
    const ids = [
      "https://relay.example.com",
      "https://staging.relay.example.com",
      "https://relay.example.com:8443",
      "https://relay.example.com/str",
      "http://localhost:8787",
      "http://localhost:8788",
    ].map((url) => idOf(manifestFor(SOURCE, url)));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("the Id is the RFC 4122 version-5 UUID of the URL in the add-in's own namespace (a known vector)", () => {
    // Python's uuid.uuid5(UUID("39acac6d-0984-4a68-83e8-9c01a4d36dbe"), url) gives these.
    expect(addinIdFor("https://relay.example.com")).toBe("4d56b807-99e7-5bd0-91c2-e2b6ac77ad12");
    expect(addinIdFor("http://localhost:8787")).toBe("86dd556b-fae5-56c5-9069-74ef9e6a35fe");
    expect(idOf(manifestFor(SOURCE, "https://relay.example.com/"))).toBe("4d56b807-99e7-5bd0-91c2-e2b6ac77ad12");
  });

  test("production (a public URL off this machine, no deployment name): the plain name", () => {
    const xml = manifestFor(SOURCE, "https://relay.example.com");
    expect(nameOf(xml)).toBe("STR Underwriting");
    expect(groupOf(xml)).toBe("STR Underwriting");
  });

  test("a named deployment says its name, in the add-in's name and on its ribbon group", () => {
    const xml = manifestFor(SOURCE, "https://staging.example.com", { deploymentName: "staging" });
    expect(nameOf(xml)).toBe("STR Underwriting (staging)");
    expect(groupOf(xml)).toBe("STR Underwriting (staging)");
  });

  test("a relay on this machine (localhost, 127.0.0.1, [::1]) is non-production: (local) unless named", () => {
    for (const url of ["http://localhost:8787", "http://127.0.0.1:8787", "https://[::1]:8443"])
      expect(nameOf(manifestFor(SOURCE, url))).toBe("STR Underwriting (local)");
    expect(nameOf(manifestFor(SOURCE, "http://localhost:8787", { deploymentName: "demo" }))).toBe(
      "STR Underwriting (demo)",
    );
  });

  test("a name with characters XML reserves is escaped", () => {
    const xml = manifestFor(SOURCE, "https://relay.example.com", { deploymentName: `QA & "test"` });
    expect(xml).toContain(`<DisplayName DefaultValue="STR Underwriting (QA &amp; &quot;test&quot;)" />`);
  });

  test("a source manifest without an Id or a DisplayName is refused, naming what is missing", () => {
    expect(() => manifestFor(SOURCE.replace(/<Id>.*<\/Id>/, ""), "https://relay.example.com")).toThrow(/<Id>/);
    expect(() => manifestFor(SOURCE.replace(/<DisplayName[^>]*>/, ""), "https://relay.example.com")).toThrow(
      /DisplayName/,
    );
  });
});
