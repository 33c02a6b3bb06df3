import { Analysis, Strategy, normalizeEnvelope } from "../../src/contract";
import { buildSandbox } from "../../src/sandbox/sandbox-server";

/**
 * Real analyses for the contract's financial tests, made by an in-memory sandbox (no socket, no
 * delay, no AI faults): `analysis(strategy, body)` answers as the service would. Close it in afterAll.
 */
export function sandboxAnalyses(key: string): {
  analysis: (strategy: Strategy, body: Record<string, unknown>) => Promise<Analysis>;
  close: () => Promise<void>;
} {
  const sandbox = buildSandbox({ timeScale: 0, faults: { aiFailureRate: 0, aiTimeoutRate: 0 } });
  return {
    async analysis(strategy, body) {
      const r = await sandbox.app.inject({
        method: "POST",
        url: `/v1/external/analysis/create/${strategy}`,
        headers: { "x-bnbcalc-api-key": key },
        payload: body,
      });
      const data = normalizeEnvelope(r.json()).data;
      if (!data) throw new Error(r.body);
      return data;
    },
    close: () => sandbox.app.close(),
  };
}
