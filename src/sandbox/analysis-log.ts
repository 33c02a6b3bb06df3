import fs from "node:fs";
import path from "node:path";
import { placeOf } from "./model";
import { StoredAnalysis } from "./state";

/*
 * The embedded sandbox's memory across runs: a relay without a key starts a new sandbox each time
 * (str-screen, every run), and one that forgot the analyses it made refused to enhance them
 * (STR_ANALYSIS_NOT_FOUND) although the relay's store still held them. Each analysis made or changed
 * is appended as a JSON line to a file in the relay's data directory and read back at the next
 * start, for the sandbox's one key (a new one each start). What is kept is what rebuilds the
 * analysis (the model is deterministic), not the analysis: the place is worked out again.
 */

type LoggedAnalysis = Omit<StoredAnalysis, "apiKey" | "place">;

/** A log longer than this many times its analyses is rewritten at load, one line each. */
const COMPACT_RATIO = 2;

export class AnalysisLog {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  /** The analyses of earlier runs, now the key's; an unreadable line is skipped (a run cut mid-write). */
  load(apiKey: string): StoredAnalysis[] {
    let text: string;
    try {
      text = fs.readFileSync(this.#file, "utf8");
    } catch {
      return [];
    }
    const byId = new Map<string, StoredAnalysis>();
    let lines = 0;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      lines++;
      const logged = readLine(line);
      if (logged) byId.set(logged.id, { ...logged, apiKey, place: placeOf(logged.request) });
    }
    const analyses = [...byId.values()];
    if (lines > COMPACT_RATIO * analyses.length + 100)
      fs.writeFileSync(this.#file, analyses.map((a) => `${lineOf(a)}\n`).join(""), { mode: 0o600 });
    return analyses;
  }

  append(analysis: StoredAnalysis): void {
    fs.mkdirSync(path.dirname(this.#file), { recursive: true, mode: 0o700 });
    fs.appendFileSync(this.#file, `${lineOf(analysis)}\n`, { mode: 0o600 });
  }
}

function lineOf({ id, strategy, request, subject, applied, warnings, createdAt }: StoredAnalysis): string {
  return JSON.stringify({ id, strategy, request, subject, applied, warnings, createdAt } satisfies LoggedAnalysis);
}

function readLine(line: string): LoggedAnalysis | undefined {
  try {
    const value = JSON.parse(line) as Partial<LoggedAnalysis>;
    return typeof value.id === "string" && typeof value.strategy === "string" && typeof value.request === "object"
      ? (value as LoggedAnalysis)
      : undefined;
  } catch {
    return undefined;
  }
}
