/**
 * Turning analyses into cells, for the custom functions, the task pane and the CLI: the card, the
 * screening row and table, the comparables table, warnings and error values. No network, no Office
 * calls, no Node modules: it runs in Excel's browser runtime and in Node alike.
 */
export * from "./cells";
export * from "./cell-values";
export * from "./answer";
export * from "./field-values";
export * from "./excel-date";
export * from "./warnings";
export * from "./card";
export * from "./card-blocks";
export * from "./what-if";
export * from "./fields";
export * from "./screening";
export * from "./comparables";
export * from "./errors";
export * from "./entity";
export * from "./sensitivity";
export * from "./result-block";
export * from "./column-name";
export * from "./projection-cells";
export * from "./monthly-cells";
export * from "./inert-text";
