/** The gateway and the parts it composes; see gateway.ts. */
export { Gateway } from "./gateway";
export type { AnalyzeOptions, GatewayOptions, Plan } from "./gateway";
export { cacheKeyOf } from "./answer-cache";
export { Budget, budgetCentsOf, committedCentsOf } from "./budget";
export { localDayStart, localMonthStart } from "./calendar";
