/*
 * Screening a table, the one pipeline the task pane and str-screen share: the plan (rows read into
 * requests), the dry run, the run loop and the row outcomes. No Node modules and no Office calls:
 * each surface reads and writes its own table (Excel ranges; an .xlsx or .csv file) and shows its
 * own progress, around these.
 */

export * from "./plan";
export * from "./row-outcome";
export * from "./estimate";
export * from "./run-loop";
export * from "./aged";
export * from "./enhance";
