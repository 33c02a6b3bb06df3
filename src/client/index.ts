/* The relay's client: one typed API for the functions, the task pane and the CLI (browser and Node). */

export * from "./errors";
export * from "./relay-client";
export * from "./batcher";
export * from "./settings";
export * from "./connection";
export * from "./addin";
export * from "./dry-run";
