#!/usr/bin/env node
// Draws the add-in's icons (a white house on a teal tile) into assets/ as PNG files.
// Node built-ins only: the shapes are tested per sample, 4×4 samples a pixel for smooth edges,
// and the PNG is written by hand (signature, IHDR, one zlib-compressed IDAT, IEND).
// The PNGs are committed; run `node scripts/make-icons.js` again only to change the design.
const { Buffer } = require("node:buffer");
const fs = require("node:fs");
const path = require("node:path");
const zlib = require("node:zlib");

const OUT_DIR = path.join(__dirname, "..", "assets");
/**
 * Ribbon and store sizes (manifest: 16/32/80 on the ribbon, 32/64 for IconUrl/HighResolutionIconUrl, 128 for
 * catalogues), the pane's logo, and the unified manifest's app icons: a 192-pixel colour one and a 32-pixel
 * outline, white on transparent (its schema's icons.color and icons.outline).
 */
const FILES = [
  ["icon-16.png", 16],
  ["icon-32.png", 32],
  ["icon-64.png", 64],
  ["icon-80.png", 80],
  ["icon-128.png", 128],
  ["icon-192.png", 192],
  ["icon-outline-32.png", 32, "outline"],
  ["logo.png", 96],
];

const TEAL = [15, 118, 110]; // #0F766E: dark enough for white to pass contrast checks
const WHITE = [255, 255, 255];
const SAMPLES = 4;

// Shapes in unit coordinates (0..1, y down), so every size is the same drawing.
const tile = { inset: 0.02, radius: 0.2 };
const roof = { apexX: 0.5, apexY: 0.16, left: 0.14, right: 0.86, baseY: 0.5 };
const body = { x0: 0.25, x1: 0.75, y0: 0.46, y1: 0.82 };
const door = { x0: 0.43, x1: 0.57, y0: 0.6, y1: 0.82 };

function inTile(x, y) {
  const { inset: i, radius: r } = tile;
  if (x < i || x > 1 - i || y < i || y > 1 - i) return false;
  // Distance to the nearest corner centre decides the rounded corners; the rest is the rectangle.
  const cx = Math.min(Math.max(x, i + r), 1 - i - r);
  const cy = Math.min(Math.max(y, i + r), 1 - i - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

function inRoof(x, y) {
  if (y < roof.apexY || y > roof.baseY) return false;
  const t = (y - roof.apexY) / (roof.baseY - roof.apexY);
  return x >= roof.apexX - t * (roof.apexX - roof.left) && x <= roof.apexX + t * (roof.right - roof.apexX);
}

const inRect = (r, x, y) => x >= r.x0 && x <= r.x1 && y >= r.y0 && y <= r.y1;

/** The colour and coverage at one sample: the house is white, its door shows the tile (the outline has no tile). */
function sample(x, y, style) {
  if (style === "outline") return (inRoof(x, y) || inRect(body, x, y)) && !inRect(door, x, y) ? WHITE : null;
  if (!inTile(x, y)) return null;
  if ((inRoof(x, y) || inRect(body, x, y)) && !inRect(door, x, y)) return WHITE;
  return TEAL;
}

/** RGBA pixels of one size; edges get partial alpha (against the tile) or blended colour (inside it). */
function draw(size, style) {
  const rgba = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        covered = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const c = sample((px + (sx + 0.5) / SAMPLES) / size, (py + (sy + 0.5) / SAMPLES) / size, style);
          if (!c) continue;
          r += c[0];
          g += c[1];
          b += c[2];
          covered++;
        }
      }
      const o = (py * size + px) * 4;
      if (covered === 0) continue;
      rgba[o] = Math.round(r / covered);
      rgba[o + 1] = Math.round(g / covered);
      rgba[o + 2] = Math.round(b / covered);
      rgba[o + 3] = Math.round((255 * covered) / (SAMPLES * SAMPLES));
    }
  }
  return rgba;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An 8-bit RGBA PNG, every scanline with filter 0 (none): small images gain little from filtering. */
function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method
  ihdr[12] = 0; // no interlace
  const stride = size * 4;
  const raw = Buffer.alloc((stride + 1) * size);
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

fs.mkdirSync(OUT_DIR, { recursive: true });
for (const [name, size, style] of FILES) {
  const png = encodePng(size, draw(size, style));
  fs.writeFileSync(path.join(OUT_DIR, name), png);
  process.stdout.write(`assets/${name}: ${size}×${size}, ${png.length} bytes\n`);
}
