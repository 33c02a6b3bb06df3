import fs from "node:fs";
import path from "node:path";
import { EVENTS } from "../../src/relay/ops/events";
import { RelayMetrics } from "../../src/relay/ops/metrics";

/** docs/relay.md describes every log event and every metric the relay has, and none it does not. */
const doc = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "relay.md"), "utf8");
const section = (title: string) => {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no section ${title}`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
};
/** The names in the first cell of a section's table rows that match `name`. */
const tableNames = (text: string, name: RegExp) =>
  [...text.matchAll(new RegExp(`^\\| \`(${name.source})\``, "gm"))].map((m) => m[1] as string);

test("Operating: logs has a row for each event in events.ts, and no other", () => {
  expect(tableNames(section("Operating: logs"), /[a-z]+\.[a-z_]+/).sort()).toEqual(Object.values(EVENTS).sort());
});

test("Metrics has a row for each str_relay_ series the relay registers, and no other", async () => {
  const metrics = new RelayMetrics({ queueDepth: () => 0, inFlight: () => 0, budgetRemainingCents: async () => 0 });
  const registered = [...(await metrics.render()).matchAll(/^# TYPE (str_relay_\w+) /gm)].map((m) => m[1]);
  expect(tableNames(section("Metrics"), /str_relay_[a-z_]+/).sort()).toEqual(registered.sort());
});
