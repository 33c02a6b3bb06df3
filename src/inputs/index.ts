/** Reading what users type: cell values, column headers, table rows (shared by the functions, the task pane and the CLI). */
export * from "./values";
export * from "./columns";
export * from "./rows";
export * from "./arguments";
export * from "./whatif-variables";
export * from "./decision-arguments";
export * from "./sensitivity-arguments";
export * from "./plausibility";
export * from "./billed-calls";
