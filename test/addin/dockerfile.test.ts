import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * deploy/Dockerfile: a supported Node LTS base, an install layer that caches (the lock copied before
 * the sources), and an image with the production dependencies only. The image's package list is
 * computed with npm itself from package.json and package-lock.json, with the flags the Dockerfile
 * installs with, so dropping `--omit=optional` there brings office-addin-debugging back here.
 */

const ROOT = path.resolve(__dirname, "../..");
const DOCKERFILE = path.join(ROOT, "deploy/Dockerfile");

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string | undefined;
  image: string;
  instructions: Instruction[];
}

/** Stages with their instructions; continuation lines joined, comments dropped, global ARG defaults substituted in FROM. */
function readDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, " ")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const globals = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === "ARG" && stages.length === 0) {
      const [name, value] = args.split("=");
      if (name && value !== undefined) globals.set(name, value);
    } else if (upper === "FROM") {
      const [image = "", as, name] = args
        .replace(/\$\{(\w+)\}/g, (_, v: string) => globals.get(v) ?? `\${${v}}`)
        .split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else {
      const stage = stages[stages.length - 1];
      if (!stage) throw new Error(`Dockerfile: ${keyword} before the first FROM`);
      stage.instructions.push({ keyword: upper, args });
    }
  }
  return stages;
}

const stages = readDockerfile(fs.readFileSync(DOCKERFILE, "utf8"));
const final = stages[stages.length - 1] as Stage;
const npmCi = (i: Instruction) => i.keyword === "RUN" && /\bnpm (ci|install|i)\b/.test(i.args);
/** `COPY --from=stage src… dest` → the stage and sources. */
const copyFrom = (i: Instruction) => {
  const from = /--from=(\S+)/.exec(i.args)?.[1];
  const paths = i.args.split(/\s+/).filter((a) => !a.startsWith("--"));
  return { from, sources: paths.slice(0, -1) };
};

test("every stage builds on an official Node image of an LTS line, 22 or later, all on the same Node and Debian", () => {
  expect(stages.length).toBeGreaterThan(0);
  const bases = stages.map((s) => /^node:(\d+)-([a-z]+)(-slim)?$/.exec(s.image));
  expect(stages.filter((_, i) => !bases[i]).map((s) => s.image)).toEqual([]);
  for (const match of bases) {
    const major = Number(match?.[1]);
    // Even majors up to 26 became LTS; from 27 every major does (the schedule changed in October 2026).
    expect(major).toBeGreaterThanOrEqual(22);
    if (major <= 26) expect(major % 2).toBe(0);
  }
  expect(new Set(bases.map((m) => `${m?.[1]}-${m?.[2]}`)).size).toBe(1);
});

test("each install copies only package.json and the lock before it, and the sources after it, so the layer caches", () => {
  const installing = stages.filter((s) => s.instructions.some(npmCi));
  expect(installing.length).toBeGreaterThan(0);
  for (const stage of installing) {
    const install = stage.instructions.findIndex(npmCi);
    const copiesBefore = stage.instructions
      .slice(0, install)
      .filter((i) => i.keyword === "COPY" || i.keyword === "ADD");
    expect({ stage: stage.name, copies: copiesBefore.map((c) => c.args) }).toEqual({
      stage: stage.name,
      copies: ["package.json package-lock.json ./"],
    });
  }
});

test("the image's node_modules come from an install with --omit=dev --omit=optional, and nothing else of the build", () => {
  const modules = final.instructions.filter(
    (i) => i.keyword === "COPY" && copyFrom(i).sources.some((s) => /node_modules/.test(s)),
  );
  expect(modules).toHaveLength(1);
  const source = stages.find((s) => s.name === copyFrom(modules[0] as Instruction).from);
  const install = source?.instructions.find(npmCi);
  expect(install?.args).toMatch(/--omit=dev\b/);
  expect(install?.args).toMatch(/--omit=optional\b/);
  expect(final.instructions.filter(npmCi)).toEqual([]);
  // From the build stage only its output; no `COPY . .` of the sources into the image.
  const fromBuild = final.instructions
    .filter((i) => i.keyword === "COPY" && copyFrom(i).from === "build")
    .flatMap((i) => copyFrom(i).sources);
  expect(fromBuild.sort()).toEqual(["/app/dist", "/app/lib"]);
  expect(final.instructions.filter((i) => i.keyword === "COPY" && /^\.\s/.test(i.args))).toEqual([]);
});

describe("the package list of the image, as npm computes it from package.json and the lock", () => {
  const modules = final.instructions.find(
    (i) => i.keyword === "COPY" && copyFrom(i).sources.some((s) => /node_modules/.test(s)),
  );
  const source = stages.find((s) => s.name === (modules && copyFrom(modules).from));
  const omit = source?.instructions.find(npmCi)?.args.match(/--omit=\S+/g) ?? [];
  const tree = JSON.parse(
    execFileSync("npm", ["ls", ...omit, "--all", "--json", "--package-lock-only"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as Tree;
  /** name@version of every package installed. */
  const installed = new Set<string>();
  collect(tree, installed);
  const names = new Set([...installed].map((p) => p.slice(0, p.lastIndexOf("@"))));
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as Record<
    string,
    Record<string, string>
  >;
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string }>;
  };

  test("holds the relay's dependencies", () => {
    for (const name of Object.keys(pkg.dependencies ?? {})) expect(names).toContain(name);
  });

  test("holds no development tooling: office-addin-debugging and its packages, webpack, TypeScript, Jest, ESLint", () => {
    const tooling = [...names].filter((n) =>
      /^(office-addin-|webpack|typescript$|ts-loader$|ts-jest$|jest|eslint|playwright)/.test(n),
    );
    expect(tooling).toEqual([]);
    // Our dev and optional dependencies as the lock resolves them. By name alone would be too strict:
    // exceljs brings an @types/node of its own, a few .d.ts files, not ours.
    const ours = [...Object.keys(pkg.devDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].map(
      (n) => `${n}@${lock.packages[`node_modules/${n}`]?.version}`,
    );
    expect(ours.filter((p) => installed.has(p))).toEqual([]);
  });
});

interface Tree {
  version?: string;
  dependencies?: Record<string, Tree>;
}

/** Names of the packages in an `npm ls --json` tree; entries without a version are absent optional peers. */
function collect(tree: Tree, into: Set<string>): void {
  for (const [name, node] of Object.entries(tree.dependencies ?? {})) {
    if (node.version) into.add(`${name}@${node.version}`);
    collect(node, into);
  }
}
