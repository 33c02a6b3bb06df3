import fs from "node:fs";
import path from "node:path";

// semver is in every install (jest and ts-jest depend on it); only `satisfies` is used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require("semver") as { satisfies(version: string, range: string): boolean };

/*
 * `npm ci` installs exactly the lock, and refuses a lock that does not name every optional package
 * its packages ask for: a lock written on one platform used to lack the native bindings of the others
 * (@unrs/resolver-binding-*, which jest's resolver loads), and `npm ci` failed on a fresh clone.
 * These tests read the lock the way `npm ci` does, so a lock regenerated on one machine that drops
 * another's packages fails here first.
 */

interface LockPackage {
  /** Set when the folder's name is an alias (better-sqlite3-node20 is better-sqlite3). */
  name?: string;
  version?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  os?: string[];
  cpu?: string[];
  engines?: { node?: string };
  optionalDependencies?: Record<string, string>;
  hasInstallScript?: boolean;
}

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as Record<string, unknown>;
const lock = read("package-lock.json") as { packages: Record<string, LockPackage> };
const manifest = read("package.json") as { engines: { node: string }; allowScripts: Record<string, boolean> };

/** Where Node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function resolve(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.includes("/node_modules/") ? dir.slice(0, dir.lastIndexOf("/node_modules/")) : "") {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (dir === "") return undefined;
  }
}

/** Desktop platforms people run the checkout on. */
const PLATFORMS = [
  { os: "linux", cpu: "x64" },
  { os: "win32", cpu: "x64" },
  { os: "darwin", cpu: "arm64" },
  { os: "darwin", cpu: "x64" },
];

describe("package-lock.json installs the same packages on Linux, Windows and macOS", () => {
  test("every optional dependency a locked package names is in the lock (what npm ci checks)", () => {
    const missing = Object.entries(lock.packages).flatMap(([from, pkg]) =>
      Object.keys(pkg.optionalDependencies ?? {})
        .filter((name) => resolve(from, name) === undefined)
        .map((name) => `${from || "(root)"} → ${name}`),
    );
    expect(missing).toEqual([]);
  });

  test("each native dependency has its binding for Linux, Windows and macOS", () => {
    // A native dependency: one whose optional dependencies are platform packages (os and cpu set).
    const native = Object.entries(lock.packages).filter(
      ([from, pkg]) =>
        Object.keys(pkg.optionalDependencies ?? {}).filter((name) => lock.packages[resolve(from, name) ?? ""]?.os)
          .length >= 2,
    );
    expect(native.map(([from]) => from)).toEqual(
      expect.arrayContaining(["node_modules/unrs-resolver", "node_modules/@parcel/watcher"]),
    );
    const gaps = native.flatMap(([from, pkg]) => {
      const bindings = Object.keys(pkg.optionalDependencies ?? {}).map(
        (name) => lock.packages[resolve(from, name) ?? ""],
      );
      return PLATFORMS.filter(
        ({ os, cpu }) => !bindings.some((b) => b?.os?.includes(os) && (b.cpu === undefined || b.cpu.includes(cpu))),
      ).map(({ os, cpu }) => `${from} has no binding for ${os}-${cpu}`);
    });
    expect(gaps).toEqual([]);
  });
});

describe("install scripts", () => {
  // npm 11 warns on every install about a package whose install script allowScripts does not decide:
  // each is allowed (better-sqlite3 builds its addon) or denied (a fallback download, a telemetry ping).
  test("every locked package with an install script is allowed or denied in package.json's allowScripts", () => {
    const undecided = Object.entries(lock.packages)
      .filter(([, pkg]) => pkg.hasInstallScript)
      .map(([at, pkg]) => pkg.name ?? at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length))
      .filter((name) => !(name in manifest.allowScripts));
    expect(undecided).toEqual([]);
  });
});

describe("Node versions (README, 'Node versions')", () => {
  // The relay and str-screen: Node 20 from 20.18.1 (undici's minimum), the LTS lines 22 and 24, and
  // 26, which CI runs the Node-side suites on (scripts/ci-node-line.sh).
  const RUNTIME = ["20.18.1", "22.0.0", "24.0.0", "26.0.0"];
  // A checkout's tools (eslint, jest's resolver) want 20.19 or 22.13 on those lines.
  const CHECKOUT = ["20.19.0", "22.13.0", "24.0.0", "26.0.0"];
  const refusing = (version: string, include: (pkg: LockPackage) => boolean) =>
    Object.entries(lock.packages)
      .filter(([at, pkg]) => at !== "" && include(pkg) && pkg.engines?.node)
      .filter(([, pkg]) => !semver.satisfies(version, pkg.engines?.node as string))
      .map(([at]) => at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length));

  // better-sqlite3 13 asks for Node 22: on Node 20 the relay loads 12 instead, installed as the
  // optional better-sqlite3-node20 (src/relay/store/sqlite/sqlite-driver.ts).
  const DRIVER_FOR_NODE_22_ON = ["better-sqlite3"];

  test.each(RUNTIME)("the relay's and the CLI's dependencies run on Node %s, and package.json says so", (version) => {
    expect(semver.satisfies(version, manifest.engines.node)).toBe(true);
    const refused = refusing(version, (pkg) => !pkg.dev && !pkg.optional && !pkg.devOptional);
    expect(refused.filter((name) => !(version.startsWith("20.") && DRIVER_FOR_NODE_22_ON.includes(name)))).toEqual([]);
  });

  test.each(RUNTIME)(
    "the SQLite driver sqlite-driver.ts loads on Node %s is locked, and asks for that Node",
    (version) => {
      const name = Number(version.split(".")[0]) >= 22 ? "better-sqlite3" : "better-sqlite3-node20";
      const driver = lock.packages[`node_modules/${name}`];
      expect(driver?.engines?.node).toBeDefined();
      expect(semver.satisfies(version, driver?.engines?.node as string)).toBe(true);
      // The one for Node 20 is 12, whose statements abort Node 24 when collected; the other is 13.
      expect(Number(driver?.version?.split(".")[0])).toBe(name === "better-sqlite3" ? 13 : 12);
    },
  );

  test.each(CHECKOUT)(
    "on Node %s only packages that Node never runs ask for another (the EBADENGINE warning)",
    (version) => {
      // @fluentui/web-components (Node 22 or 24) is bundled by webpack into the task pane and runs in
      // Excel's browser runtime; Node only copies it. better-sqlite3 13 is not loaded on Node 20
      // (sqlite-driver.ts).
      const NEVER_RUN = ["@fluentui/web-components", ...(version.startsWith("20.") ? DRIVER_FOR_NODE_22_ON : [])];
      expect(refusing(version, () => true).filter((name) => !NEVER_RUN.includes(name))).toEqual([]);
    },
  );
});
