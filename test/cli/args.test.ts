import { DEFAULT_COMPS, UsageError, parseArgs } from "../../src/cli/args";
import { watchSandboxes } from "../support/sandbox-watch";
import { screen, tempDir, testEnv } from "./support";

const usage = (argv: string[]) => {
  try {
    parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(" ")}`);
};

describe("the command line", () => {
  test("reads IN, --out and every option, in either --name value or --name=value form", () => {
    expect(parseArgs(["in.csv", "--out", "out.xlsx"])).toMatchObject({
      input: "in.csv",
      out: "out.xlsx",
      strategy: "buy",
      strategyGiven: false,
      refresh: false,
      dryRun: false,
      comps: DEFAULT_COMPS,
    });
    const o = parseArgs([
      "--strategy=Co-Host",
      "book.xlsx",
      "--refresh",
      "--sheet",
      "Deals",
      "--fields",
      "revenue.p50, Host return",
      "--comps=0",
      "--out=x.xlsx",
    ]);
    expect(o).toMatchObject({
      input: "book.xlsx",
      strategy: "cohost",
      strategyGiven: true,
      refresh: true,
      sheet: "Deals",
      comps: 0,
    });
    expect(o.fields?.map((f) => f.path)).toEqual(["revenue.p50", "yearOneCohostReturnUSD"]);
    expect(parseArgs(["in.csv", "--dry-run"])).toMatchObject({ dryRun: true, out: undefined });
    expect(parseArgs(["--help"]).help).toBe(true);
    expect(parseArgs(["-h", "--bogus"]).help).toBe(true);
  });

  test.each([
    [
      ["in.csv", "--out", "o.xlsx", "--strategy", "flip"],
      '--strategy must be one of buy, arb, owned, cohost; got "flip"',
    ],
    [["in.csv"], "--out must be given"],
    [["in.csv", "--out", "o.txt"], '--out must name an .xlsx, .csv, .json file; got "o.txt"'],
    [
      ["in.xls", "--out", "o.xlsx"],
      'IN must be a .csv or .xlsx file (save .xls and .ods as .xlsx first); got "in.xls"',
    ],
    [["--out", "o.xlsx"], "IN must be given"],
    [["a.csv", "b.csv", "--out", "o.xlsx"], "one input file at a time; got 2"],
    [["in.csv", "--out"], "--out needs a value"],
    [["in.csv", "--out", "--refresh"], "--out needs a value"],
    [["in.csv", "--out", "o.xlsx", "--comps", "51"], '--comps must be a whole number from 0 to 50; got "51"'],
    [["in.csv", "--out", "o.xlsx", "--comps", "three"], '--comps must be a whole number from 0 to 50; got "three"'],
    [["in.csv", "--out", "o.xlsx", "--dryrun"], "unknown option --dryrun (did you mean --dry-run?)"],
    [["in.csv", "--out", "o.xlsx", "--verbose"], "unknown option --verbose; options:"],
    [["in.csv", "--out", "o.xlsx", "-v"], "unknown option -v"],
    [["in.csv", "--out", "o.xlsx", "--refresh=yes"], '--refresh takes no value; got "yes"'],
    [["in.csv", "--out", "o.xlsx", "--out", "p.xlsx"], "--out is given twice"],
    [["in.csv", "--out", "o.xlsx", "--sheet", "Deals"], "--sheet applies to .xlsx input only"],
    [["in.csv", "--out", "o.xlsx", "--fields", "cashflw"], '--fields: "cashflw" is not a field'],
    [["in.csv", "--out", "o.xlsx", "--fields", ""], "--fields is empty"],
    [
      ["in.csv", "--out", "o.xlsx", "--strategy", "arb", "--fields", "Cap rate"],
      "--fields: yearOneCapRatePercentage is not in arb analyses",
    ],
  ])("%j → %s", (argv, message) => {
    expect(usage(argv)).toContain(message);
  });

  describe("the words node:util's parseArgs splits as this command line does not", () => {
    test("a value starting with one dash is a value: the option's own rule judges it", () => {
      expect(usage(["in.csv", "-o", "o.xlsx", "--comps", "-1"])).toBe(
        '--comps must be a whole number from 0 to 50; got "-1"',
      );
      expect(usage(["in.csv", "-o", "o.xlsx", "--refresh-older-than", "-3"])).toMatch(/^--refresh-older-than .*"-3"/);
      expect(parseArgs(["book.xlsx", "--dry-run", "--sheet", "-2024"]).sheet).toBe("-2024");
      expect(usage(["in.csv", "--out", "-"])).toBe('--out must name an .xlsx, .csv, .json file; got "-"');
      // "--" right after a value option is its value, as the options are not over until it is read as one.
      expect(usage(["in.csv", "--out", "--"])).toBe('--out must name an .xlsx, .csv, .json file; got "--"');
    });

    test("an empty value after = is given, and judged", () => {
      expect(usage(["in.csv", "--out="])).toBe('--out must name an .xlsx, .csv, .json file; got ""');
      expect(usage(["in.csv", "--dry-run", "--comps="])).toBe('--comps must be a whole number from 0 to 50; got ""');
      expect(usage(["in.csv", "--dry-run", "--refresh="])).toBe('--refresh takes no value; got ""');
    });

    test("-o and -h stand alone: not grouped, no value attached", () => {
      for (const word of ["-oout.xlsx", "-o=out.xlsx", "-ho", "-oh"])
        expect(usage(["in.csv", word])).toMatch(new RegExp(`^unknown option ${word}; options: --out, `));
      expect(parseArgs(["in.csv", "-o", "-o.xlsx"]).out).toBe("-o.xlsx");
    });

    test('"--" ends the options: what follows is the input file, even "--help" or a name starting with "-"', () => {
      expect(parseArgs(["--dry-run", "--", "-deals.csv"])).toMatchObject({ input: "-deals.csv", dryRun: true });
      expect(usage(["--dry-run", "--", "--help"])).toMatch(/^IN must be a \.csv or \.xlsx file .*; got "--help"$/);
      expect(usage(["a.csv", "--dry-run", "--", "-b.csv"])).toBe('one input file at a time; got 2: "a.csv", "-b.csv"');
      expect(usage(["in.csv", "--dry-run", "--", "--out", "o.xlsx"])).toMatch(/^one input file at a time; got 3/);
    });

    test("a repeated flag is the flag; a repeated value option, even in its other form, is an error", () => {
      expect(parseArgs(["in.csv", "--dry-run", "--refresh", "--refresh"]).refresh).toBe(true);
      expect(usage(["in.csv", "-o", "a.xlsx", "--out=b.xlsx"])).toBe("--out is given twice");
      expect(usage(["in.csv", "--dry-run", "--comps", "3", "--comps"])).toBe("--comps is given twice");
    });

    test("an unknown option is named as given, its value aside", () => {
      expect(usage(["in.csv", "--dry-run", "--verbose=3"])).toMatch(/^unknown option --verbose; options: /);
      expect(usage(["in.csv", "--dry-run", "--Dry_Run"])).toBe("unknown option --Dry_Run (did you mean --dry-run?)");
      expect(usage(["in.csv", "--dry-run", "--=x"])).toMatch(/^unknown option --=x; options: /);
      expect(usage(["in.csv", "--dry-run", "-1.csv"])).toMatch(/^unknown option -1\.csv; options: /);
    });

    test("help wins before a --, even as another option's value", () => {
      expect(parseArgs(["--fields", "-h"]).help).toBe(true);
      expect(parseArgs(["in.csv", "--bogus", "--version"]).version).toBe(true);
      expect(usage(["in.csv", "--dry-run", "--help=x"])).toBe('--help takes no value; got "x"');
    });
  });

  describe("usage and configuration errors exit 2 before anything is sent", () => {
    const dir = tempDir();
    const env = testEnv(dir);

    test("a usage error names the option and points to --help", async () => {
      const r = await screen(["in.csv", "--out", "o.xlsx", "--strategy", "flip"], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'str-screen: --strategy must be one of buy, arb, owned, cohost; got "flip"\nRun str-screen --help for usage.\n',
      );
    });

    test("--help prints the usage and exits 0", async () => {
      const r = await screen(["--help"], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: str-screen IN\.csv\|IN\.xlsx --out OUT\.xlsx/);
      expect(r.stdout).toMatch(/Exit codes: 0/);
    });

    test("a missing input file, an input without a location column, and an unwritable output", async () => {
      expect((await screen([`${dir}/nope.csv`, "--out", `${dir}/o.xlsx`], env)).stderr).toMatch(
        /IN ".*nope\.csv" does not exist/,
      );
      const fs = await import("node:fs");
      fs.writeFileSync(`${dir}/prices.csv`, "Price,Beds\n415000,3\n");
      const noLocation = await screen([`${dir}/prices.csv`, "--out", `${dir}/o.xlsx`], env);
      expect(noLocation.code).toBe(2);
      expect(noLocation.stderr).toMatch(
        /no column holds the location: add an Address column \(or Latitude and Longitude columns\); the headers in row 1 are "Price", "Beds"/,
      );
      fs.writeFileSync(`${dir}/one.csv`, "Address,Price,Beds,Baths,Guests\n12 Main St Austin TX,415000,3,2,8\n");
      const noFolder = await screen([`${dir}/one.csv`, "--out", `${dir}/missing/o.xlsx`], env);
      expect(noFolder.code).toBe(2);
      expect(noFolder.stderr).toMatch(/the folder .*missing does not exist or cannot be written/);
      expect(fs.existsSync(`${dir}/str-screen-sandbox`)).toBe(false);
    });

    test("a run stopped by its table ends the sandbox its relay had started meanwhile", async () => {
      // The in-process relay's sandbox starts before the table is read (relay-target.ts).
      const sandboxes = await watchSandboxes();
      try {
        const fs = await import("node:fs");
        fs.writeFileSync(`${dir}/prices.csv`, "Price,Beds\n415000,3\n");
        const r = await screen([`${dir}/prices.csv`, "--out", `${dir}/o.xlsx`], env);
        expect(r.code).toBe(2);
        expect(sandboxes.count).toBe(1);
        expect(await sandboxes.anyListening()).toBe(false);
        expect(fs.existsSync(`${dir}/str-screen-sandbox`)).toBe(false);
      } finally {
        await sandboxes.restore();
      }
    });

    test("the service's key is never taken in: STR_API_KEY without a relay URL is refused", async () => {
      const fs = await import("node:fs");
      fs.writeFileSync(`${dir}/one.csv`, "Address,Price,Beds,Baths,Guests\n12 Main St Austin TX,415000,3,2,8\n");
      const r = await screen([`${dir}/one.csv`, "--dry-run"], { ...env, STR_API_KEY: "sk_live_0123456789abcdef" });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/STR_API_KEY is set, but str-screen's own relay runs only on the sandbox/);
      expect(r.stderr).not.toContain("sk_live_0123456789abcdef");
    });

    test("a bad relay setting of the in-process relay is a configuration error", async () => {
      const fs = await import("node:fs");
      fs.writeFileSync(`${dir}/one.csv`, "Address,Price,Beds,Baths,Guests\n12 Main St Austin TX,415000,3,2,8\n");
      const r = await screen([`${dir}/one.csv`, "--dry-run"], { ...env, RELAY_UPSTREAM_RPS: "fast" });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/RELAY_UPSTREAM_RPS/);
    });
  });
});
