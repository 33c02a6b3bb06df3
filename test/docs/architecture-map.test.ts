import fs from "node:fs";
import path from "node:path";

/*
 * docs/architecture.md is the map a newcomer finds a behaviour by: every path it names exists, and
 * every folder of the code is named on it, so a move or a new folder cannot leave the map behind.
 */

const ROOT = path.join(__dirname, "..", "..");
const MAP = fs.readFileSync(path.join(ROOT, "docs", "architecture.md"), "utf8");

/** `src/relay/gateway/gateway.ts`, `taskpane/overwrite.ts`, `src/screening/`: paths from the repository's root. */
function pathsNamed(text: string): string[] {
  const found = text.match(/(?:src|taskpane|functions|test|bench|docs)\/[\w./-]*[\w/]/g) ?? [];
  return [...new Set(found)];
}

function foldersUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}`);
}

test("every path architecture.md names exists", () => {
  const named = pathsNamed(MAP);
  expect(named.length).toBeGreaterThan(40);
  expect(named.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
});

test("every folder of src, src/relay and taskpane is named on the map", () => {
  const folders = [...foldersUnder("src"), ...foldersUnder("src/relay"), ...foldersUnder("taskpane")];
  const relayTable = MAP.slice(MAP.indexOf("## Inside the relay"), MAP.indexOf("## Rules every change keeps"));
  const unnamed = folders.filter((folder) =>
    folder.startsWith("src/relay/")
      ? !relayTable.includes(`\`${folder.slice("src/relay/".length)}/\``)
      : !MAP.includes(`${folder}/`) && !MAP.includes(`\`${folder.split("/").at(-1)}/\``),
  );
  expect(unnamed).toEqual([]);
});

test("the relay keeps at most a dozen files at its top, one of them its public face", () => {
  const top = fs.readdirSync(path.join(ROOT, "src", "relay")).filter((name) => name.endsWith(".ts"));
  expect(top).toContain("index.ts");
  expect(top.length).toBeLessThanOrEqual(12);
});
