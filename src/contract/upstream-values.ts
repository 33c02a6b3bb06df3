import { NormalizedEnvelope, Warning } from "./analysis";
import { ANALYSIS_ID_PATTERN } from "./rules";

/*
 * The service's values that the relay and the sheets use as more than text: the analysis id (a key
 * in the store, a URL path, a cell a formula reads) and links (cells that open them). Checked where
 * the answer comes in, so nothing downstream meets `_id: "=1+1"` or `url: "javascript:…"`.
 */

/** A web address: http or https, nothing else (no javascript:, file:, data:). */
export function isWebAddress(value: unknown): value is string {
  return typeof value === "string" && /^https?:\/\/\S+$/i.test(value);
}

export interface CheckedUpstreamValues {
  envelope: NormalizedEnvelope;
  /** Why the answer cannot be used (its id breaks the rule); the envelope is then as it came. */
  problem?: string;
}

/**
 * The envelope with every link that is not a web address dropped (and a warning saying so), or the
 * problem that makes it unusable: an analysis id outside the relay's own rule.
 */
export function checkUpstreamValues(envelope: NormalizedEnvelope): CheckedUpstreamValues {
  const data = envelope.data;
  if (!data) return { envelope };
  if (data._id !== undefined && !ANALYSIS_ID_PATTERN.test(data._id))
    return { envelope, problem: "an analysis id that breaks the rule for ids (1 to 128 letters, digits, - or _)" };
  const dropped: string[] = [];
  const url = isWebAddress(data.url) || data.url === undefined ? data.url : (dropped.push("url"), undefined);
  const comparables = data.comparables.map((c, i) => {
    const photos = c.photo_urls?.filter(isWebAddress);
    if (photos && photos.length < (c.photo_urls?.length ?? 0)) dropped.push(`comparables[${i}].photo_urls`);
    if (c.listingUrl === undefined || isWebAddress(c.listingUrl)) return photos ? { ...c, photo_urls: photos } : c;
    dropped.push(`comparables[${i}].listingUrl`);
    return { ...c, listingUrl: undefined, ...(photos ? { photo_urls: photos } : {}) };
  });
  if (dropped.length === 0) return { envelope };
  const warning: Warning = `The service sent links that are not web addresses (http or https); dropped: ${dropped.slice(0, 5).join(", ")}${dropped.length > 5 ? ` and ${dropped.length - 5} more` : ""}.`;
  return {
    envelope: {
      ...envelope,
      data: { ...data, url, comparables },
      warnings: [...(envelope.warnings ?? []), warning],
    },
  };
}
