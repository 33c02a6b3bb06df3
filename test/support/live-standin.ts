import http from "node:http";
import { AddressInfo } from "node:net";

/**
 * A stand-in for the live service over loopback: it answers each POST with what `answer` makes of
 * the request (any status, any body), as the live service might, and records what it was sent. It
 * takes the key under either header (the live one and the spec's placeholder), so the relay under
 * test reaches it however it is configured.
 */
export interface StandInCall {
  path: string;
  body: Record<string, unknown>;
}

export interface StandInAnswer {
  status: number;
  body: unknown;
}

export interface StandIn {
  url: string;
  calls: StandInCall[];
  close(): Promise<void>;
}

export const STAND_IN_KEY = "sk_standin_key_0123456789";

export async function startStandIn(answer: (call: StandInCall) => StandInAnswer): Promise<StandIn> {
  const calls: StandInCall[] = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      const key = req.headers["x-bnbcalc-api-key"] ?? req.headers["x-service-api-key"];
      const reply = (status: number, body: unknown) => {
        const json = typeof body === "string" ? body : JSON.stringify(body);
        res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" });
        res.end(json);
      };
      if (key !== STAND_IN_KEY) return reply(401, { success: false, error: "Invalid API key" });
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return reply(400, { success: false, error: "Invalid JSON" });
      }
      const call = { path: (req.url ?? "").split("?")[0] ?? "", body };
      calls.push(call);
      const out = answer(call);
      reply(out.status, out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
