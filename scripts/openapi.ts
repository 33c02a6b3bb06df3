// Writes docs/openapi.json: the relay's HTTP API as OpenAPI 3.1, generated from the zod contract.
// `npm run openapi`; test/relay/openapi.test.ts fails when the committed file is out of date.
import fs from "node:fs";
import path from "node:path";
import { openApiDocument } from "../src/relay/http/openapi";

const file = path.resolve(__dirname, "..", "docs", "openapi.json");
fs.writeFileSync(file, `${JSON.stringify(openApiDocument("http://localhost:8787"), null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
