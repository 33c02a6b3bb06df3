import { NormalizedEnvelope, checkUpstreamValues, isWebAddress, normalizeEnvelope } from "../../src/contract";
import { outcomeOf } from "../../src/relay/upstream/outcome";
import { AnyRequest } from "../../src/contract";

/**
 * The service's ids and links are checked where its answer comes in: an id outside the relay's rule
 * makes the answer unusable (billed, reported as a bad answer); a link that is not http(s) is dropped
 * with a warning, the rest of the answer kept.
 */
const envelope = (data: Record<string, unknown>): NormalizedEnvelope => normalizeEnvelope({ success: true, data });
const comparable = (listingUrl: string, photos: string[] = []) => ({ name: "Home", listingUrl, photo_urls: photos });

describe("the service's ids and links at the boundary", () => {
  test.each(["=1+1", "a b", "", "../etc", "x".repeat(129), "[redacted]", "id\n", "javascript:alert(1)"])(
    "an analysis id %j is a problem named by its rule",
    (id) => {
      expect(checkUpstreamValues(envelope({ _id: id })).problem).toMatch(/1 to 128 letters, digits, - or _/);
    },
  );

  test("ids within the rule pass, untouched", () => {
    for (const id of ["64f1a2b3c4d5e6f7a8b9c0d1", "an_42", "A-b_9", "x".repeat(128)]) {
      const checked = checkUpstreamValues(envelope({ _id: id, url: `https://reports.example/${id}` }));
      expect(checked.problem).toBeUndefined();
      expect(checked.envelope.data?._id).toBe(id);
      expect(checked.envelope.warnings).toBeUndefined();
    }
  });

  test("links that are not http(s) are dropped with one warning naming where; web links kept", () => {
    const checked = checkUpstreamValues(
      envelope({
        _id: "an_1",
        url: "javascript:alert(document.cookie)",
        comparables: [
          comparable("file:///etc/passwd", ["https://img.example/1.jpg", "data:image/svg+xml,<svg/>"]),
          comparable("https://listing.example/2", ["https://img.example/2.jpg"]),
          comparable('=HYPERLINK("http://evil.example")'),
        ],
      }),
    );
    expect(checked.problem).toBeUndefined();
    const data = checked.envelope.data;
    expect(data?.url).toBeUndefined();
    expect(data?.comparables.map((c) => c.listingUrl).sort()).toEqual([
      "https://listing.example/2",
      undefined,
      undefined,
    ]);
    expect(data?.comparables.flatMap((c) => c.photo_urls ?? []).sort()).toEqual([
      "https://img.example/1.jpg",
      "https://img.example/2.jpg",
    ]);
    expect(checked.envelope.warnings).toEqual([
      expect.stringMatching(/^The service sent links that are not web addresses \(http or https\); dropped: url, /),
    ]);
    expect(checked.envelope.warnings?.[0]).not.toMatch(/javascript|file:|HYPERLINK/);
  });

  test("isWebAddress: http and https only", () => {
    expect(isWebAddress("https://a.example/x")).toBe(true);
    expect(isWebAddress("HTTP://a.example")).toBe(true);
    for (const v of ["javascript:x", "file:///x", "ftp://x", "//x", "https://a b", 3, undefined]) {
      expect(isWebAddress(v)).toBe(false);
    }
  });

  test("the relay books an answer with a bad id as billed and unusable (STR_UPSTREAM_UNUSABLE)", () => {
    const request = { fullAddress: "12 Main St, Austin TX" } as unknown as AnyRequest;
    const bad = outcomeOf(
      "buy",
      request,
      { kind: "answer", status: 200, headers: {}, body: { success: true, data: { _id: "=1+1" } } },
      (t) => t,
    );
    expect(bad).toMatchObject({ state: "billed", charge: { cents: 20 }, error: { code: "STR_UPSTREAM_UNUSABLE" } });
    expect("error" in bad && bad.error.message).not.toContain("=1+1");
    const good = outcomeOf(
      "buy",
      request,
      { kind: "answer", status: 200, headers: {}, body: { success: true, data: { _id: "an_1", url: "file:///x" } } },
      (t) => t,
    );
    expect(good).toMatchObject({ state: "billed", envelope: { data: { _id: "an_1" } } });
    expect("envelope" in good && good.envelope.data?.url).toBeUndefined();
  });
});
