/*
 * The one rule for results that would land on cells of the user's, for a screening and a refresh
 * alike. Before the run the pane shows what is in the way (excel/destination.ts) and asks: write
 * further right (the default) or overwrite. Just before anything is sent, the cells where the
 * results will go are read again, and the run goes ahead only if they cover no more of the user's
 * cells than the user agreed to: with Overwrite, as many as they were shown; otherwise none. Else
 * nothing is sent and the pane asks again, with what is in the way now. Cells are counted block by
 * block, so a cell typed beside one table is not made up for by a cell cleared beside another.
 */
import { resultBlockWidth } from "../src/sheet";
import { DestinationCheck, Placement, checkDestination, destinationOf, placeBlock } from "./excel/destination";
import { ExcelRun } from "./excel/host";
import { ScreeningJob } from "./screen";

/** One block of results about to be written, as the user saw it before confirming. */
export interface PlannedBlock {
  /** The job as planned, before the user's answer moves it. */
  job: ScreeningJob;
  /** The earlier block of ours it replaces, in sheet columns: ours to write over. */
  earlier: { left: number; width: number } | undefined;
  /** What of the user's was in the way when the question was asked. */
  shown: DestinationCheck;
}

export type PlacedResults =
  /** The jobs as they will write: where planned, or further right when the user chose so. */
  | { go: true; jobs: ScreeningJob[] }
  /** Something of the user's is now where the results would go: what is in the way of each block now, where planned. */
  | { go: false; now: DestinationCheck[] };

/** The user's cells the results may cover: those shown, when the user chose to overwrite them; otherwise none. */
export function mayCover(shown: DestinationCheck, placement: Placement): number {
  return placement === "overwrite" ? shown.occupied : 0;
}

/** Places each block by the user's answer, then reads the cells it will write again: the run goes only if none covers more than the user agreed to. */
export async function placeResults(
  run: ExcelRun,
  blocks: readonly PlannedBlock[],
  placement: Placement,
): Promise<PlacedResults> {
  const jobs: ScreeningJob[] = [];
  for (const block of blocks) {
    const job = placeBlock(block.job, block.shown, placement, resultBlockWidth(block.job.fields));
    const now = await checkDestination(run, destinationOf(job, block.earlier));
    if (now.occupied > mayCover(block.shown, placement)) return { go: false, now: await inTheWay(run, blocks) };
    jobs.push(job);
  }
  return { go: true, jobs };
}

/** What of the user's is in the way of each block where it was planned: what the question asks about. */
export async function inTheWay(
  run: ExcelRun,
  blocks: readonly Omit<PlannedBlock, "shown">[],
): Promise<DestinationCheck[]> {
  const checks: DestinationCheck[] = [];
  for (const { job, earlier } of blocks) checks.push(await checkDestination(run, destinationOf(job, earlier)));
  return checks;
}
