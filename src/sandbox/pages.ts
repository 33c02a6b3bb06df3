import { AnalysisData, COMPARABLE_COLUMNS, FIELD_CATALOGUE, Strategy, UNIT_SCALE, Unit } from "../contract";
import { SANDBOX_NOTICE } from "./model";
import { hash32 } from "./random";

/*
 * The sandbox's public pages: the hosted report every analysis links to, the simulated listings
 * and their placeholder photos. Each says, in large type, that it is simulated.
 */

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}

// One formatter for every page: toLocaleString with options builds a new one on each call, which a
// run of thousands of reports (str-screen's kept report files) feels.
const USD = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });

function formatValue(value: unknown, unitName: Unit): string {
  if (typeof value !== "number") return value === undefined || value === null ? "—" : escapeHtml(String(value));
  const v = value * UNIT_SCALE[unitName];
  switch (unitName) {
    case "usd":
      return USD.format(v);
    case "percent":
    case "fraction":
      return `${(v * 100).toFixed(1)} %`;
    case "miles":
      return `${v.toFixed(1)} mi`;
    default:
      return String(v);
  }
}

function valueAt(data: AnalysisData, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), data);
}

const STYLE = `
body{font:15px/1.45 "Segoe UI",system-ui,sans-serif;margin:0;color:#1b1b1b;background:#faf9f8}
main{max-width:980px;margin:0 auto;padding:16px 20px 48px}
.banner{background:#fff4ce;border:2px solid #c19c00;padding:12px 16px;font-weight:600;border-radius:4px}
h1{font-size:24px;margin:18px 0 4px} h2{font-size:18px;margin:24px 0 8px}
table{border-collapse:collapse;width:100%;background:#fff} td,th{border-bottom:1px solid #edebe9;padding:6px 8px;text-align:left}
td.n,th.n{text-align:right} .muted{color:#605e5c} .warn{color:#8a3707}
`;

/** `listingLinks: false` for a copy kept after the sandbox is gone (str-screen's report files): the listings' pages go with it. */
export function reportPage(
  data: AnalysisData,
  strategy: Strategy,
  warnings: readonly string[],
  options: { listingLinks?: boolean } = {},
): string {
  const rows = FIELD_CATALOGUE.filter((f) => f.strategies.includes(strategy) && f.unit !== "url")
    .map(
      (f) =>
        `<tr><th scope="row">${escapeHtml(f.label)}</th><td class="n">${formatValue(valueAt(data, f.path), f.unit)}</td></tr>`,
    )
    .join("");
  const comps = (data.comparables ?? []) as Record<string, unknown>[];
  const compRows = comps
    .map(
      (c) =>
        `<tr>${COMPARABLE_COLUMNS.filter((col) => col.unit !== "id" && col.key !== "photo_urls.0")
          .map((col) =>
            col.unit === "url"
              ? options.listingLinks === false
                ? `<td class="muted">simulated</td>`
                : `<td><a href="${escapeHtml(String(c[col.key] ?? ""))}">listing</a></td>`
              : `<td class="${col.unit === "text" ? "" : "n"}">${formatValue(c[col.key], col.unit)}</td>`,
          )
          .join("")}</tr>`,
    )
    .join("");
  const head = COMPARABLE_COLUMNS.filter((col) => col.unit !== "id" && col.key !== "photo_urls.0")
    .map(
      (col) =>
        `<th class="${col.unit === "text" || col.unit === "url" ? "" : "n"}" scope="col">${escapeHtml(col.label)}</th>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sandbox report — ${escapeHtml(String(data.fullAddress ?? ""))}</title><style>${STYLE}</style></head><body><main>
<p class="banner" role="note">SIMULATED — ${escapeHtml(SANDBOX_NOTICE)} These figures come from the STR sandbox's model, not from listings.</p>
<h1>${escapeHtml(String(data.fullAddress ?? "Analysis"))}</h1>
<p class="muted">${escapeHtml(strategy)} analysis · ${escapeHtml(String(data.market ?? ""))} · id ${escapeHtml(String(data._id ?? ""))}</p>
${warnings.length ? `<h2>Warnings</h2><ul>${warnings.map((w) => `<li class="warn">${escapeHtml(w)}</li>`).join("")}</ul>` : ""}
<h2>Underwriting</h2><table>${rows}</table>
<h2>Comparables (${comps.length})</h2><table><thead><tr>${head}</tr></thead><tbody>${compRows}</tbody></table>
</main></body></html>`;
}

export function listingPage(platformId: string, baseUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox listing ${escapeHtml(platformId)}</title><style>${STYLE}</style></head>
<body><main><p class="banner" role="note">SIMULATED — this listing does not exist. ${escapeHtml(SANDBOX_NOTICE)}</p>
<h1>Sandbox listing ${escapeHtml(platformId)}</h1>
${[1, 2, 3].map((n) => `<img src="${escapeHtml(`${baseUrl}/photos/${platformId}/${n}.svg`)}" width="320" height="200" alt="Placeholder photo ${n}">`).join(" ")}
</main></body></html>`;
}

/** A placeholder photo: a coloured house sketch labelled "sandbox", its colours fixed by the listing id. */
export function photoSvg(platformId: string, n: number): string {
  const h = hash32(`${platformId}:${n}`);
  const hue = h % 360;
  const sky = `hsl(${hue},55%,82%)`;
  const wall = `hsl(${(hue + 40) % 360},35%,62%)`;
  const roof = `hsl(${(hue + 180) % 360},40%,38%)`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200" role="img" aria-label="Sandbox placeholder photo">
<rect width="320" height="200" fill="${sky}"/><rect y="150" width="320" height="50" fill="hsl(${(hue + 90) % 360},35%,45%)"/>
<rect x="100" y="90" width="120" height="70" fill="${wall}"/><polygon points="90,92 160,45 230,92" fill="${roof}"/>
<rect x="148" y="120" width="24" height="40" fill="#5c4033"/><rect x="112" y="104" width="24" height="20" fill="#e1f0ff"/><rect x="184" y="104" width="24" height="20" fill="#e1f0ff"/>
<text x="10" y="22" font-family="sans-serif" font-size="14" fill="#1b1b1b">SANDBOX · photo ${n}</text></svg>`;
}
