import http from "node:http";
import net from "node:net";
import { buildSandbox } from "../../src/sandbox/sandbox-server";

/**
 * A stand-in for the service that quotes the key back in every JSON escaping it can: in comparables'
 * names, warnings, field names, the report's url, its headers (Retry-After on a first 429, and a
 * debug header), and, for an address holding "Id Echo", as the analysis id. The figures are the
 * sandbox's own, so the relay and str-screen read a real answer around the echoes.
 */
export interface HostileService {
  url: string;
  /** Requests that reached it (429s included). */
  received: () => number;
  close: () => Promise<void>;
}

/** The key written in JSON escapes: every character, either hex case, only its `/` and `_`, alternate ones. */
export function jsonEscapings(key: string): string[] {
  const u = (ch: string, upper = false) =>
    Array.from({ length: ch.length }, (_, i) => {
      const h = ch.charCodeAt(i).toString(16).padStart(4, "0");
      return `\\u${upper ? h.toUpperCase() : h}`;
    }).join("");
  const chars = [...key];
  return [
    chars.map((c) => u(c)).join(""),
    chars.map((c) => u(c, true)).join(""),
    chars.map((c) => (c === "/" ? "\\/" : c === "_" ? u(c) : c)).join(""),
    chars.map((c, i) => (i % 2 === 0 ? u(c) : c === "/" ? "\\/" : c)).join(""),
  ];
}

export async function startHostileService(key: string): Promise<HostileService> {
  const sandbox = buildSandbox({ timeScale: 0, apiKeys: [key], faults: { aiFailureRate: 0, aiTimeoutRate: 0 } });
  const escaped = jsonEscapings(key);
  const throttledOnce = new Set<string>();
  let received = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received++;
      const body = Buffer.concat(chunks).toString("utf8");
      res.setHeader("x-debug-echo", key);
      if (!throttledOnce.has(body)) {
        throttledOnce.add(body);
        res.writeHead(429, { "retry-after": key, "content-type": "application/json" });
        return void res.end(`{"error":"slow down, ${escaped[0]}"}`);
      }
      void sandbox.app
        .inject({
          method: "POST",
          url: req.url ?? "/",
          headers: { "x-service-api-key": key, "content-type": "application/json" },
          payload: body,
        })
        .then((answer) => {
          res.writeHead(answer.statusCode, { "content-type": "application/json" });
          res.end(answer.statusCode === 200 ? echoing(answer.body, escaped, body.includes("Id Echo")) : answer.body);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sandbox.app.close();
    },
  };
}

/** The sandbox's answer with placeholders put where the key goes, then each replaced by an escaped key. */
function echoing(text: string, escaped: string[], idEcho: boolean): string {
  const answer = JSON.parse(text) as {
    data: Record<string, unknown> & { comparables?: Record<string, unknown>[] };
    warnings?: unknown[];
  };
  const mark = (i: number) => `@@KEY${i % escaped.length}@@`;
  answer.warnings = [...(answer.warnings ?? []), ...escaped.map((_, i) => `debug ${mark(i)}`)];
  for (const [i, c] of (answer.data.comparables ?? []).entries()) c.name = `Home ${mark(i)}`;
  for (const [i] of escaped.entries()) answer.data[`field_${mark(i)}`] = i;
  answer.data.url = `https://reports.example/${mark(1)}`;
  if (idEcho) answer.data._id = mark(2);
  return JSON.stringify(answer).replace(/@@KEY(\d+)@@/g, (_, i: string) => escaped[Number(i)] ?? "");
}
