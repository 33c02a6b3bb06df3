/* The gateway and the parts it composes; see gateway.ts. */

export { Gateway } from "./gateway";
export type { AnalyzeOptions, GatewayOptions, Plan } from "./options";
export { Budget, budgetCentsOf } from "./budget";
export { localMonthStart } from "./calendar";
