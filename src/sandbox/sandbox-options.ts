import { z } from "zod";
import { toFieldIssues } from "../contract";

const rate = z.number().min(0).max(1);

/**
 * Knobs that make the sandbox misbehave the way a real service can, for the reliability suites.
 * All default to a well-behaved service, except the AI outcome rates, which default to what an
 * investor would meet now and then.
 */
export const SandboxFaults = z.strictObject({
  /** Share of calls answered 503 before anything is processed (never billed). */
  unavailableRate: rate.default(0),
  /** Share of connections destroyed as soon as the request arrives, before it is processed (never billed). */
  dropBeforeProcessRate: rate.default(0),
  /** Share of calls processed and billed, then answered by a destroyed connection (the caller cannot know). */
  dropAfterProcessRate: rate.default(0),
  /** Added to every call's latency, in real milliseconds (not scaled). */
  extraLatencyMs: z.number().min(0).max(600_000).default(0),
  /**
   * Added to the latency of every call that asks for an AI step, in real milliseconds (not scaled):
   * AI slower than the reports beside it, as the live service's (up to 90 s) is.
   */
  aiExtraLatencyMs: z.number().min(0).max(600_000).default(0),
  /** Share of AI steps that fail (deterministic by input). */
  aiFailureRate: rate.default(0.04),
  /** Share of AI steps that run past the 90-second AI limit and time out (deterministic by input). */
  aiTimeoutRate: rate.default(0.02),
  /** Share of answers sent in the drifted shapes integrators report (docs/service/observed-behaviour.md). */
  driftRate: rate.default(0),
  /** Send error bodies as plain text, as some integrators read them. */
  textErrors: z.boolean().default(false),
  /** Send warnings as strings (the common case) or as objects. */
  warningStyle: z.enum(["text", "object"]).default("text"),
  /** Requests a key may make in any one-second window (the spec: 100). */
  rateLimitPerSecond: z.number().int().min(1).max(100_000).default(100),
});
export type SandboxFaults = z.infer<typeof SandboxFaults>;
// Not SandboxFaults.partial(): zod 4 still applies defaults inside optional(), so a patch of one
// knob would come back with every other knob reset to its default. Unwrapping the defaults keeps a
// patch to what it names.
const faultShape = SandboxFaults.shape;
type FaultShape = typeof faultShape;
export const SandboxFaultsPatch = z.strictObject(
  Object.fromEntries(Object.entries(faultShape).map(([name, schema]) => [name, schema.unwrap().optional()])) as {
    [K in keyof FaultShape]: z.ZodOptional<ReturnType<FaultShape[K]["unwrap"]>>;
  },
);
export type SandboxFaultsPatch = z.infer<typeof SandboxFaultsPatch>;

export const SandboxOptions = z.strictObject({
  /**
   * Latency multiplier: 1 is the live service's (10–30 s a report, AI up to 90 s), 0 answers at
   * once. The default keeps a demo brisk (a report in about a second) while still showing pending cells.
   */
  timeScale: z.number().min(0).max(10).default(0.05),
  /**
   * Keys the sandbox accepts. Empty: any key shaped like the live service's (`sk_` and at least
   * 8 more characters), so a fresh machine needs no set-up.
   */
  apiKeys: z.array(z.string().min(1)).default([]),
  /** Where report, listing and photo links point; the sandbox serves them under this base. */
  publicBaseUrl: z.string().url().optional(),
  /**
   * A file the analyses made are kept in and read back from at start (analysis-log.ts), so that a
   * sandbox started again can still enhance them. Needs exactly one key in `apiKeys`: they become its.
   */
  analysesFile: z.string().min(1).optional(),
  /** Seed of the fault dice, so a faulty run can be replayed. */
  seed: z.string().default("sandbox"),
  faults: SandboxFaults.prefault({}),
});
export type SandboxOptions = z.infer<typeof SandboxOptions>;
export type SandboxOptionsInput = z.input<typeof SandboxOptions>;

const ENV_FAULTS: Record<string, keyof SandboxFaults> = {
  SANDBOX_UNAVAILABLE_RATE: "unavailableRate",
  SANDBOX_DROP_BEFORE_RATE: "dropBeforeProcessRate",
  SANDBOX_DROP_AFTER_RATE: "dropAfterProcessRate",
  SANDBOX_EXTRA_LATENCY_MS: "extraLatencyMs",
  SANDBOX_AI_EXTRA_LATENCY_MS: "aiExtraLatencyMs",
  SANDBOX_AI_FAILURE_RATE: "aiFailureRate",
  SANDBOX_AI_TIMEOUT_RATE: "aiTimeoutRate",
  SANDBOX_DRIFT_RATE: "driftRate",
  SANDBOX_RATE_LIMIT: "rateLimitPerSecond",
};

const ENV_OPTIONS: Record<string, string> = {
  SANDBOX_TIME_SCALE: "timeScale",
  SANDBOX_PUBLIC_URL: "publicBaseUrl",
  SANDBOX_SEED: "seed",
  SANDBOX_TEXT_ERRORS: "faults.textErrors",
  SANDBOX_WARNING_STYLE: "faults.warningStyle",
};

/** The SANDBOX_* variable an option's path came from. */
function variableOf(path: string): string | undefined {
  const fault = Object.entries(ENV_FAULTS).find(([, key]) => path === `faults.${key}`);
  if (fault) return fault[0];
  if (path.startsWith("apiKeys")) return "SANDBOX_API_KEYS";
  return Object.entries(ENV_OPTIONS).find(([, key]) => path === key)?.[0];
}

/** Sandbox options from SANDBOX_* environment variables; a bad one fails with its name and rule. */
export function sandboxOptionsFromEnv(env: NodeJS.ProcessEnv): SandboxOptions {
  const faults: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(ENV_FAULTS)) {
    const value = env[name];
    if (value !== undefined && value !== "") faults[key] = Number(value);
  }
  if (env.SANDBOX_TEXT_ERRORS)
    faults.textErrors = env.SANDBOX_TEXT_ERRORS === "1" || env.SANDBOX_TEXT_ERRORS === "true";
  if (env.SANDBOX_WARNING_STYLE) faults.warningStyle = env.SANDBOX_WARNING_STYLE;
  const input = {
    ...(env.SANDBOX_TIME_SCALE ? { timeScale: Number(env.SANDBOX_TIME_SCALE) } : {}),
    ...(env.SANDBOX_API_KEYS
      ? {
          apiKeys: env.SANDBOX_API_KEYS.split(",")
            .map((k) => k.trim())
            .filter(Boolean),
        }
      : {}),
    ...(env.SANDBOX_PUBLIC_URL ? { publicBaseUrl: env.SANDBOX_PUBLIC_URL } : {}),
    ...(env.SANDBOX_SEED ? { seed: env.SANDBOX_SEED } : {}),
    faults,
  };
  const parsed = SandboxOptions.safeParse(input);
  if (!parsed.success) {
    // Named as the user set it: the variable and the text it held, beside the rule.
    const problems = toFieldIssues(parsed.error).map((issue) => {
      const name = variableOf(issue.path);
      return name ? `${name} ${issue.message}; got ${JSON.stringify(env[name])}` : `${issue.path} ${issue.message}`;
    });
    throw new Error(`Invalid sandbox configuration: ${problems.join("; ")}`);
  }
  return parsed.data;
}
