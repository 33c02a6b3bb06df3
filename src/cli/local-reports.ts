import fs from "node:fs";
import path from "node:path";
import { RelayAnswer, Strategy, STRATEGIES } from "../contract";
import { analysisOf, warningTexts } from "../sheet";
import { reportPage } from "../sandbox/pages";

/*
 * The reports of a run on str-screen's own sandbox relay, kept as HTML files beside OUT. That relay
 * stops when the run ends, so links to its report pages would be dead in the workbook: the report
 * column links to `<OUT name>-reports/<analysis id>.html` instead, a path relative to OUT that
 * Excel follows from wherever the two are copied together. Listings have no page to keep (they are
 * simulated), so their cells say so instead of linking.
 */

export const NO_LISTING_PAGE = "simulated listing: no page once the run ends";
/** What a comparable's photo cell says instead of a URL into a relay gone with the run. */
export const NO_PHOTO = "simulated photo: gone once the run ends";

export class LocalReports {
  /** The folder, relative to OUT's folder (as cells hold it). */
  readonly folder: string;
  readonly #dir: string;

  constructor(out: string) {
    this.folder = `${path.basename(out, path.extname(out))}-reports`;
    this.#dir = path.join(path.dirname(path.resolve(out)), this.folder);
  }

  /** Made before anything is sent, so a folder that cannot be written stops the run before it spends. */
  prepare(): void {
    fs.mkdirSync(this.#dir, { recursive: true });
    fs.accessSync(this.#dir, fs.constants.W_OK);
  }

  /**
   * Starts writing the answer's report, off the event loop (which an in-process relay shares): resolves
   * to its path relative to OUT's folder, or to why it could not be written; undefined without an analysis.
   */
  write(answer: RelayAnswer, strategy: string | undefined): Promise<KeptReport> | undefined {
    const analysis = analysisOf(answer);
    const id = analysis?._id;
    if (!analysis || !id || !/^[\w-]+$/.test(id)) return undefined;
    const file = `${id}.html`;
    const kind: Strategy = (STRATEGIES as readonly string[]).includes(strategy ?? "") ? (strategy as Strategy) : "buy";
    const page = reportPage(analysis, kind, warningTexts(answer), { listingLinks: false });
    return fs.promises.writeFile(path.join(this.#dir, file), page).then(
      // A forward slash: Excel and browsers read it on Windows too.
      () => ({ file: `${this.folder}/${file}` }),
      (error: NodeJS.ErrnoException) => ({ failed: `${this.folder}/${file} (${error.code ?? error.message})` }),
    );
  }
}

/** A report kept beside OUT, or the file that could not be written and why. */
export type KeptReport = { file: string } | { failed: string };
