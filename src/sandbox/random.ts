/*
 * Deterministic randomness: the same input always yields the same market, comparables and AI
 * outcomes, so a sandbox answer can be asserted in a test and recomputed from its inputs.
 */

/** 32-bit FNV-1a hash of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A uniform number in [0, 1) fixed by `parts`. */
export function unit(...parts: (string | number)[]): number {
  return hash32(parts.join("\u241f")) / 2 ** 32;
}

/** mulberry32: a small, fast seeded generator of uniform numbers in [0, 1). */
export function seeded(seed: string): () => number {
  let a = hash32(seed);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A normally distributed number (Box–Muller) from a generator. */
export function normal(next: () => number, mean = 0, sd = 1): number {
  const u = Math.max(next(), 1e-12);
  const v = next();
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}
