/**
 * The service's interface as code, shared by every part: request and answer schemas, validation
 * messages, billing, the canonical request form and the field catalogue. The financial model is src/model.
 * No I/O, no Node modules: it runs in the relay and in Excel alike.
 */
export * from "./operations";
export * from "./rules";
export * from "./requests";
export * from "./issues";
export * from "./analysis";
export * from "./normalize";
export * from "./monthly";
export * from "./units";
export * from "./upstream-values";
export * from "./ai-warnings";
export * from "./billing";
export * from "./canonical";
export * from "./catalogue";
export * from "./numbers";
export * from "./relay-api";
export * from "./jobs";
