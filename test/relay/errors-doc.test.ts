import fs from "node:fs";
import path from "node:path";
import { ClientErrorCode, RelayErrorCode } from "../../src/contract";
import { ERRORS } from "../../src/relay/relay-errors";
import { ERROR_ADVICE, WHEN_RELAY_SAYS } from "../../src/sheet";

/**
 * docs/errors.md is where users look a code up, so it must list every code the relay and the client
 * can answer, with the status the relay really sends, and nothing else: a code that is not in the
 * page cannot be looked up, and a page that lists a removed code sends people chasing it.
 */

const DOC = path.resolve(__dirname, "../../docs/errors.md");
const RELAY_HEADING = "## Relay error codes";
const CLIENT_HEADING = "## Client error codes";

/** Environment variables that look like codes (STR_…) and may be named in the page's prose. */
const VARIABLES = new Set(["STR_API_KEY", "STR_API_BASE_URL", "STR_RELAY_URL", "STR_RELAY_TOKEN"]);

interface Row {
  code: string;
  status: number;
  billed: string;
  meaning: string;
  action: string;
}

/** The section of the page under `heading`, up to the next `## ` heading. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no "${heading}" section`);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The rows of the section's table "Code | HTTP status | Billed | Meaning | What to do". */
function tableRows(text: string, heading: string): Row[] {
  const lines = section(text, heading).split("\n");
  const header = lines.findIndex((l) =>
    /^\|\s*Code\s*\|\s*HTTP status\s*\|\s*Billed\s*\|\s*Meaning\s*\|\s*What to do\s*\|\s*$/.test(l),
  );
  if (header < 0) throw new Error(`"${heading}" has no table "Code | HTTP status | Billed | Meaning | What to do"`);
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    const code = /^`([A-Z0-9_]+)`$/.exec(cells[0] ?? "")?.[1];
    if (!code) throw new Error(`a row of "${heading}" does not start with a code in backticks: ${line.slice(0, 80)}`);
    rows.push({
      code,
      status: Number(cells[1]),
      billed: cells[2] ?? "",
      meaning: cells[3] ?? "",
      action: cells[4] ?? "",
    });
  }
  return rows;
}

const text = fs.readFileSync(DOC, "utf8");
const relayRows = tableRows(text, RELAY_HEADING);
const clientRows = tableRows(text, CLIENT_HEADING);
const relayCodes = Object.keys(ERRORS).sort();
const clientCodes = [...ClientErrorCode.options].sort();

describe("the error table in src/relay/relay-errors.ts and the contract agree", () => {
  test("ERRORS and RelayErrorCode list the same codes", () => {
    expect(relayCodes).toEqual([...RelayErrorCode.options].sort());
  });

  test("no code is both a relay code and a client code", () => {
    expect(clientCodes.filter((c) => relayCodes.includes(c))).toEqual([]);
  });
});

describe("docs/errors.md documents every error code, and only those", () => {
  test("every relay code (ERRORS, RelayErrorCode) has a row in the relay table", () => {
    const documented = new Set(relayRows.map((r) => r.code));
    expect(relayCodes.filter((c) => !documented.has(c))).toEqual([]);
    expect(RelayErrorCode.options.filter((c) => !documented.has(c))).toEqual([]);
  });

  test("the relay table lists no code that does not exist", () => {
    expect(relayRows.map((r) => r.code).filter((c) => !(c in ERRORS))).toEqual([]);
  });

  test("each documented HTTP status is the one ERRORS answers with", () => {
    const wrong = relayRows
      .filter((r) => r.code in ERRORS && ERRORS[r.code as RelayErrorCode].status !== r.status)
      .map((r) => `${r.code}: documented ${r.status}, answered ${ERRORS[r.code as RelayErrorCode].status}`);
    expect(wrong).toEqual([]);
  });

  test("every client code (ClientErrorCode) has a row in the client table, with status 0", () => {
    const documented = new Set(clientRows.map((r) => r.code));
    expect(clientCodes.filter((c) => !documented.has(c))).toEqual([]);
    expect(clientRows.map((r) => r.code).filter((c) => !clientCodes.includes(c as ClientErrorCode))).toEqual([]);
    expect(clientRows.filter((r) => r.status !== 0).map((r) => r.code)).toEqual([]);
  });

  test("each code has one row, with a meaning and what to do", () => {
    const all = [...relayRows, ...clientRows].map((r) => r.code);
    expect(all.filter((c, i) => all.indexOf(c) !== i)).toEqual([]);
    expect([...relayRows, ...clientRows].filter((r) => r.meaning === "" || r.action === "").map((r) => r.code)).toEqual(
      [],
    );
  });

  test("each code's Billed is what the cells, the pane and the CLI say (src/sheet/errors.ts)", () => {
    const words = { "not-billed": "no", billed: "yes", unknown: "unknown" } as const;
    const expected = (code: string) => {
      const billing = ERROR_ADVICE[code as keyof typeof ERROR_ADVICE].billing;
      // A code whose bill the relay states per call: the page says which ways it can end.
      const perCall = WHEN_RELAY_SAYS[code as RelayErrorCode];
      if (!perCall) return words[billing];
      return `${[...new Set([...Object.keys(perCall), billing])].map((b) => words[b as keyof typeof words]).join(" or ")}: see \`billing\``;
    };
    const wrong = [...relayRows, ...clientRows]
      .filter((r) => r.billed !== expected(r.code))
      .map((r) => `${r.code}: documented "${r.billed}", said "${expected(r.code)}"`);
    expect(wrong).toEqual([]);
  });

  test("the page names no code that does not exist, in prose either", () => {
    const known = new Set<string>([...relayCodes, ...clientCodes, ...VARIABLES]);
    const named = [...new Set(text.match(/\bSTR_[A-Z0-9_]+\b/g) ?? [])];
    expect(named.filter((c) => !known.has(c))).toEqual([]);
  });
});
