// Writes the Power Automate custom connector (paconn's three files) into docs/connector/, or into
// another folder for another relay: `npm run connector -- https://relay.example.org out-dir`.
// test/relay/connector.test.ts fails when the committed files are out of date.
import fs from "node:fs";
import path from "node:path";
import { connectorFiles } from "../src/relay/connector";

const [publicUrl, outDir] = process.argv.slice(2);
const dir = path.resolve(outDir ?? path.join(__dirname, "..", "docs", "connector"));
fs.mkdirSync(dir, { recursive: true });
for (const [name, content] of Object.entries(connectorFiles(publicUrl))) {
  fs.writeFileSync(path.join(dir, name), content);
  process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(dir, name))}\n`);
}
