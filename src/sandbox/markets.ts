import { canonicalText } from "../contract";
import { unit } from "./random";

/**
 * Where a property is, as far as the simulation cares: a market with a nightly-rate and occupancy
 * level. Real metros, with plausible (simulated, not measured) levels for a two-bedroom listing;
 * anywhere else gets a deterministic market of its own.
 */
export interface Market {
  id: string;
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  lat: number;
  lng: number;
  /** Nightly rate of a typical two-bedroom listing, USD. */
  ratePerNightUSD: number;
  /** Occupancy of a typical listing, fraction of 1. */
  occupancy: number;
  /** Long-term rent a month as a fraction of the property's price. */
  ltrYield: number;
  /** Words that name it in an address, lowercase. */
  names: readonly string[];
  /** True when the market came from the built-in table. */
  known: boolean;
}

type Row = [
  id: string,
  name: string,
  country: string,
  lat: number,
  lng: number,
  adr: number,
  occ: number,
  ltr: number,
  names: string[],
];

// prettier-ignore
const ROWS: Row[] = [
  ["austin-tx", "Austin, TX", "US", 30.2672, -97.7431, 215, 0.56, 0.0062, ["austin"]],
  ["nashville-tn", "Nashville, TN", "US", 36.1627, -86.7816, 265, 0.63, 0.0058, ["nashville"]],
  ["miami-fl", "Miami, FL", "US", 25.7617, -80.1918, 245, 0.64, 0.0066, ["miami", "miami beach"]],
  ["orlando-fl", "Orlando / Kissimmee, FL", "US", 28.5384, -81.3789, 185, 0.61, 0.0068, ["orlando", "kissimmee", "davenport"]],
  ["destin-fl", "Destin, FL", "US", 30.3935, -86.4958, 330, 0.55, 0.0049, ["destin", "miramar beach", "santa rosa beach"]],
  ["panama-city-beach-fl", "Panama City Beach, FL", "US", 30.1766, -85.8055, 260, 0.52, 0.0055, ["panama city beach"]],
  ["gatlinburg-tn", "Gatlinburg / Pigeon Forge, TN", "US", 35.7143, -83.5102, 240, 0.60, 0.0060, ["gatlinburg", "pigeon forge", "sevierville"]],
  ["myrtle-beach-sc", "Myrtle Beach, SC", "US", 33.6891, -78.8867, 205, 0.55, 0.0065, ["myrtle beach"]],
  ["charleston-sc", "Charleston, SC", "US", 32.7765, -79.9311, 275, 0.62, 0.0052, ["charleston"]],
  ["savannah-ga", "Savannah, GA", "US", 32.0809, -81.0912, 225, 0.63, 0.0060, ["savannah", "tybee island"]],
  ["atlanta-ga", "Atlanta, GA", "US", 33.749, -84.388, 170, 0.55, 0.0064, ["atlanta"]],
  ["asheville-nc", "Asheville, NC", "US", 35.5951, -82.5515, 210, 0.62, 0.0056, ["asheville"]],
  ["new-orleans-la", "New Orleans, LA", "US", 29.9511, -90.0715, 235, 0.60, 0.0070, ["new orleans"]],
  ["houston-tx", "Houston, TX", "US", 29.7604, -95.3698, 165, 0.53, 0.0072, ["houston"]],
  ["dallas-tx", "Dallas, TX", "US", 32.7767, -96.797, 175, 0.54, 0.0068, ["dallas", "fort worth"]],
  ["san-antonio-tx", "San Antonio, TX", "US", 29.4241, -98.4936, 160, 0.52, 0.0070, ["san antonio"]],
  ["galveston-tx", "Galveston, TX", "US", 29.3013, -94.7977, 240, 0.50, 0.0062, ["galveston"]],
  ["denver-co", "Denver, CO", "US", 39.7392, -104.9903, 190, 0.63, 0.0052, ["denver"]],
  ["breckenridge-co", "Breckenridge, CO", "US", 39.4817, -106.0384, 395, 0.55, 0.0038, ["breckenridge", "frisco", "keystone"]],
  ["park-city-ut", "Park City, UT", "US", 40.6461, -111.498, 420, 0.50, 0.0035, ["park city"]],
  ["scottsdale-az", "Scottsdale / Phoenix, AZ", "US", 33.4942, -111.9261, 250, 0.55, 0.0055, ["scottsdale", "phoenix", "tempe", "mesa"]],
  ["joshua-tree-ca", "Joshua Tree, CA", "US", 34.1347, -116.3131, 230, 0.57, 0.0058, ["joshua tree", "yucca valley", "twentynine palms"]],
  ["palm-springs-ca", "Palm Springs, CA", "US", 33.8303, -116.5453, 340, 0.58, 0.0045, ["palm springs", "palm desert", "la quinta", "indio"]],
  ["big-bear-ca", "Big Bear Lake, CA", "US", 34.2439, -116.9114, 290, 0.47, 0.0050, ["big bear"]],
  ["lake-tahoe-ca", "Lake Tahoe, CA/NV", "US", 39.0968, -120.0324, 380, 0.52, 0.0040, ["lake tahoe", "south lake tahoe", "tahoe city", "truckee"]],
  ["san-diego-ca", "San Diego, CA", "US", 32.7157, -117.1611, 285, 0.68, 0.0042, ["san diego", "la jolla"]],
  ["los-angeles-ca", "Los Angeles, CA", "US", 34.0522, -118.2437, 245, 0.66, 0.0040, ["los angeles", "santa monica", "hollywood", "venice"]],
  ["san-francisco-ca", "San Francisco, CA", "US", 37.7749, -122.4194, 260, 0.70, 0.0035, ["san francisco"]],
  ["seattle-wa", "Seattle, WA", "US", 47.6062, -122.3321, 205, 0.69, 0.0045, ["seattle"]],
  ["portland-or", "Portland, OR", "US", 45.5152, -122.6784, 160, 0.62, 0.0050, ["portland"]],
  ["las-vegas-nv", "Las Vegas, NV", "US", 36.1699, -115.1398, 215, 0.60, 0.0058, ["las vegas", "henderson"]],
  ["chicago-il", "Chicago, IL", "US", 41.8781, -87.6298, 195, 0.63, 0.0070, ["chicago"]],
  ["new-york-ny", "New York, NY", "US", 40.7128, -74.006, 265, 0.74, 0.0042, ["new york", "brooklyn", "manhattan", "queens"]],
  ["boston-ma", "Boston, MA", "US", 42.3601, -71.0589, 255, 0.71, 0.0045, ["boston", "cambridge"]],
  ["cape-cod-ma", "Cape Cod, MA", "US", 41.6688, -70.2962, 345, 0.48, 0.0040, ["cape cod", "hyannis", "provincetown", "chatham"]],
  ["washington-dc", "Washington, DC", "US", 38.9072, -77.0369, 210, 0.67, 0.0048, ["washington, dc", "washington dc"]],
  ["honolulu-hi", "Honolulu, HI", "US", 21.3069, -157.8583, 290, 0.76, 0.0040, ["honolulu", "waikiki", "oahu"]],
  ["maui-hi", "Maui, HI", "US", 20.7984, -156.3319, 455, 0.70, 0.0033, ["maui", "lahaina", "kihei", "wailea"]],
  ["anchorage-ak", "Anchorage, AK", "US", 61.2181, -149.9003, 200, 0.58, 0.0060, ["anchorage"]],
  ["london-gb", "London, UK", "GB", 51.5074, -0.1278, 240, 0.72, 0.0038, ["london"]],
  ["paris-fr", "Paris, France", "FR", 48.8566, 2.3522, 230, 0.74, 0.0035, ["paris"]],
  ["barcelona-es", "Barcelona, Spain", "ES", 41.3874, 2.1686, 205, 0.73, 0.0040, ["barcelona"]],
  ["lisbon-pt", "Lisbon, Portugal", "PT", 38.7223, -9.1393, 160, 0.75, 0.0042, ["lisbon", "lisboa"]],
  ["rome-it", "Rome, Italy", "IT", 41.9028, 12.4964, 185, 0.72, 0.0040, ["rome", "roma"]],
  ["toronto-ca", "Toronto, Canada", "CA", 43.6532, -79.3832, 185, 0.66, 0.0040, ["toronto"]],
  ["vancouver-ca", "Vancouver, Canada", "CA", 49.2827, -123.1207, 210, 0.70, 0.0036, ["vancouver"]],
  ["mexico-city-mx", "Mexico City, Mexico", "MX", 19.4326, -99.1332, 95, 0.68, 0.0055, ["mexico city", "ciudad de mexico", "cdmx"]],
  ["tulum-mx", "Tulum, Mexico", "MX", 20.2114, -87.4654, 190, 0.55, 0.0050, ["tulum", "playa del carmen"]],
  ["sydney-au", "Sydney, Australia", "AU", -33.8688, 151.2093, 220, 0.71, 0.0038, ["sydney"]],
  ["tokyo-jp", "Tokyo, Japan", "JP", 35.6762, 139.6503, 170, 0.78, 0.0040, ["tokyo"]],
  ["dubai-ae", "Dubai, UAE", "AE", 25.2048, 55.2708, 230, 0.70, 0.0050, ["dubai"]],
  ["bali-id", "Bali, Indonesia", "ID", -8.4095, 115.1889, 140, 0.64, 0.0060, ["bali", "canggu", "ubud", "seminyak"]],
];

export const MARKETS: readonly Market[] = ROWS.map(
  ([id, name, country, lat, lng, ratePerNightUSD, occupancy, ltrYield, names]) => ({
    id,
    name,
    country,
    lat,
    lng,
    ratePerNightUSD,
    occupancy,
    ltrYield,
    names,
    known: true,
  }),
);

const US_STATES =
  "al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy dc".split(
    " ",
  );
const US_STATE_NAMES = [
  "alabama",
  "alaska",
  "arizona",
  "arkansas",
  "california",
  "colorado",
  "connecticut",
  "delaware",
  "florida",
  "georgia",
  "hawaii",
  "idaho",
  "illinois",
  "indiana",
  "iowa",
  "kansas",
  "kentucky",
  "louisiana",
  "maine",
  "maryland",
  "massachusetts",
  "michigan",
  "minnesota",
  "mississippi",
  "missouri",
  "montana",
  "nebraska",
  "nevada",
  "new hampshire",
  "new jersey",
  "new mexico",
  "new york",
  "north carolina",
  "north dakota",
  "ohio",
  "oklahoma",
  "oregon",
  "pennsylvania",
  "rhode island",
  "south carolina",
  "south dakota",
  "tennessee",
  "texas",
  "utah",
  "vermont",
  "virginia",
  "washington",
  "west virginia",
  "wisconsin",
  "wyoming",
];
const US_COUNTRY = new Set(["us", "usa", "u.s.", "u.s.a.", "united states", "united states of america"]);

/** Whether a `country` parameter names the US; dots and spacing do not matter ("U.S.A.", "u.s"). */
function namesUS(country: string): boolean {
  const words = canonicalText(country)
    .replace(/[^a-z]+/g, " ")
    .trim(); // "U.S.A." → "u s a"
  return US_COUNTRY.has(words) || US_COUNTRY.has(words.replace(/ /g, ""));
}

function wordsOf(text: string): string {
  return ` ${canonicalText(text)
    .replace(/[^a-z0-9]+/g, " ")
    .trim()} `;
}

/** True when the words of `text` contain `phrase` as whole words. */
function mentions(words: string, phrase: string): boolean {
  return words.includes(` ${phrase.replace(/[^a-z0-9]+/g, " ").trim()} `);
}

/**
 * Whether an address reads as a US one: the country named, a state named, or a state code closing
 * the address or a part of it ("Austin TX", "Austin, TX 78701", "…, TX, USA").
 */
export function looksUS(address: string): boolean {
  const words = wordsOf(address);
  if ([...US_COUNTRY].some((c) => mentions(words, c))) return true;
  for (const part of address.toLowerCase().split(",")) {
    const tokens = part.trim().split(/\s+/);
    if (/^\d{5}(-\d{4})?$/.test(tokens[tokens.length - 1] ?? "")) tokens.pop();
    const last = tokens[tokens.length - 1];
    if (last !== undefined && US_STATES.includes(last)) return true;
  }
  return US_STATE_NAMES.some((s) => mentions(words, s));
}

/** Rough boxes around the US (contiguous states, Alaska, Hawaii), for coordinates outside any market. */
export function insideUS(lat: number, lng: number): boolean {
  return (
    (lat >= 24.4 && lat <= 49.4 && lng >= -125 && lng <= -66.9) ||
    (lat >= 51 && lat <= 71.5 && lng >= -180 && lng <= -129.9) ||
    (lat >= 18.9 && lat <= 22.3 && lng >= -160.3 && lng <= -154.8)
  );
}

const EARTH_RADIUS_MILES = 3958.8;

export function distanceMiles(aLat: number, aLng: number, bLat: number, bLng: number): number {
  const rad = Math.PI / 180;
  const dLat = (bLat - aLat) * rad;
  const dLng = (bLng - aLng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(aLat * rad) * Math.cos(bLat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.sqrt(h));
}

/** A market of its own for a place the table does not know: levels fixed by the place's key. */
function fallbackMarket(key: string, lat: number, lng: number, country: string): Market {
  return {
    id: `local-${key.length}-${Math.floor(unit("market", key) * 1e9).toString(36)}`,
    name: "Local market (simulated)",
    country,
    lat,
    lng,
    ratePerNightUSD: Math.round(95 + unit("adr", key) * 170),
    occupancy: Math.round((0.42 + unit("occ", key) * 0.3) * 100) / 100,
    ltrYield: Math.round((0.0045 + unit("ltr", key) * 0.003) * 10000) / 10000,
    names: [],
    known: false,
  };
}

export interface Place {
  market: Market;
  lat: number;
  lng: number;
  /** The place's own identity, for everything that is fixed by location (photos, comparables). */
  key: string;
  us: boolean;
}

/** Finds the market of an address: the longest market name it mentions, else a local market. */
export function placeOfAddress(fullAddress: string, country?: string): Place {
  const words = wordsOf(fullAddress);
  let best: Market | undefined;
  let bestLength = 0;
  for (const m of MARKETS) {
    for (const name of m.names) {
      if (name.length > bestLength && mentions(words, name)) {
        best = m;
        bestLength = name.length;
      }
    }
  }
  const key = `addr:${canonicalText(fullAddress)}`;
  const us = country !== undefined ? namesUS(country) : best ? best.country === "US" : looksUS(fullAddress);
  if (best) {
    // Spread addresses within a few miles of the market's centre.
    const lat = best.lat + (unit("dlat", key) - 0.5) * 0.08;
    const lng = best.lng + (unit("dlng", key) - 0.5) * 0.08;
    return { market: best, lat: round6(lat), lng: round6(lng), key, us };
  }
  const lat = us ? 30 + unit("lat", key) * 15 : -35 + unit("lat", key) * 90;
  const lng = us ? -120 + unit("lng", key) * 43 : -170 + unit("lng", key) * 340;
  return {
    market: fallbackMarket(key, round6(lat), round6(lng), us ? "US" : "ZZ"),
    lat: round6(lat),
    lng: round6(lng),
    key,
    us,
  };
}

/** Finds the market of coordinates: the nearest known one within 60 miles, else a local market. */
export function placeOfPoint(lat: number, lng: number, country?: string): Place {
  let best: Market | undefined;
  let bestMiles = 60;
  for (const m of MARKETS) {
    const d = distanceMiles(lat, lng, m.lat, m.lng);
    if (d < bestMiles) {
      best = m;
      bestMiles = d;
    }
  }
  const key = `point:${lat.toFixed(5)},${lng.toFixed(5)}`;
  const us = country !== undefined ? namesUS(country) : best ? best.country === "US" : insideUS(lat, lng);
  const market = best ?? fallbackMarket(`point:${lat.toFixed(2)},${lng.toFixed(2)}`, lat, lng, us ? "US" : "ZZ");
  return { market, lat, lng, key, us };
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
