/* The relay's client: one typed API for the functions, the task pane and the CLI (browser and Node). */

export * from "./relay-call-error";
export * from "./relay-client";
export * from "./batcher";
export * from "./relay-settings";
export * from "./connection";
export * from "./addin";
export * from "./dry-run-totals";
