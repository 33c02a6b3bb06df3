import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "../../src/cli/args";
import { planScreening } from "../../src/cli/table-plan";
import { readTable } from "../../src/cli/table-reader";
import { screen, tempDir, testEnv } from "./support";

/**
 * European numbers in str-screen: a ;-separated CSV (or --decimal-comma) reads "," as the decimal
 * mark and "." as the thousands mark; where the convention is not known (a tab-separated file), a
 * value that could be two amounts is refused before anything is sent, naming row, column and both.
 */
describe("decimal marks in the CLI's input", () => {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const plan = async (file: string, ...flags: string[]) =>
    planScreening(await readTable(file, undefined), parseArgs([file, "--dry-run", ...flags]));

  test("a ;-separated CSV: 450.000 is 450,000 USD and 1,5 baths is 1.5", async () => {
    const file = write("semicolon.csv", "Address;Price;Beds;Baths;Sleeps\n1 Main St, Austin TX;450.000;3;1,5;6\n");
    const p = await plan(file);
    expect(p.rows.map((r) => r.kind)).toEqual(["request"]);
    expect(p.items[0]?.params).toMatchObject({ purchasePriceUSD: 450000, bathrooms: 1.5 });
  });

  test("--decimal-comma reads a comma-separated file's quoted values the same way; --decimal-point overrides a ;-separated file", async () => {
    const comma = write("comma.csv", 'Address,Price,Beds,Baths,Sleeps\n"1 Main St, Austin TX","450.000",3,"1,5",6\n');
    expect((await plan(comma, "--decimal-comma")).items[0]?.params).toMatchObject({
      purchasePriceUSD: 450000,
      bathrooms: 1.5,
    });
    const semi = write(
      "semicolon-us.csv",
      "Address;Price;Beds;Baths;Sleeps\n1 Main St, Austin TX;450,000.00;3;1.5;6\n",
    );
    expect((await plan(semi, "--decimal-point")).items[0]?.params).toMatchObject({
      purchasePriceUSD: 450000,
      bathrooms: 1.5,
    });
  });

  test("a tab-separated file says no convention: 450.000 is refused in the dry run with its row, column and both readings", async () => {
    const file = write(
      "tabs.csv",
      "Address\tPrice\tBeds\tBaths\tSleeps\n1 Main St, Austin TX\t450.000\t3\t2\t6\n2 Main St, Austin TX\t450000\t3\t2\t6\n",
    );
    const ran = await screen([file, "--dry-run"], testEnv(tempDir()));
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/row 2: Price must be .*"450\.000" could mean 450 or 450000/);
    expect(ran.stdout).toMatch(/Invalid\s+1/);
  });

  test("--decimal-comma and --decimal-point together are a usage error", () => {
    expect(() => parseArgs(["in.csv", "--dry-run", "--decimal-comma", "--decimal-point"])).toThrow(
      /--decimal-comma and --decimal-point/,
    );
  });
});
