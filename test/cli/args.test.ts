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
