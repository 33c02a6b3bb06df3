import http from "node:http";
import net from "node:net";
import zlib from "node:zlib";
import { buildSandbox } from "../../src/sandbox/sandbox-server";

/**
 * A stand-in for the service that counts exactly what it bills: a create is billed (0.20 USD, and
 * 0.10 for each AI function it completes) the moment it is taken, as the service does, and only then answered, in the way its address names
 * ("12 Gzip St" is answered gzipped). The figures are the sandbox's own, so a readable answer is a
 * real analysis. Ways that are not the service answering (a proxy's page, a throttle) bill nothing.
 */
export const BILLING_KEY = "sk_billing_standin_0123456789";

export const ANSWER_WAYS = [
  "plain",
  "truncated",
  "nan",
  "bom",
  "gzip",
  "deflate",
  "br",
  "nodata",
  "html",
  "failure",
  "zerowait",
  "trickle",
  "fewcomps",
  "codefail",
] as const;
export type AnswerWay = (typeof ANSWER_WAYS)[number];

/** The ways in which the service took the request, and so billed it. */
const BILLS: ReadonlySet<AnswerWay> = new Set([
  "plain",
  "truncated",
  "nan",
  "bom",
  "gzip",
  "deflate",
  "br",
  "nodata",
  "trickle",
  "fewcomps",
  "codefail",
]);

/**
 * AI answered by the stand-in itself, over the sandbox's figures: "fewcomps" completes every AI
 * function asked for and warns of the comparables it found (a warning about no AI function);
 * "codefail" fails AI comparables, saying so only with a code object.
 */
const AI_WARNINGS: Partial<Record<AnswerWay, unknown>> = {
  fewcomps: "Only 12 comparables found within 3 miles",
  codefail: { code: "AI_COMPS_FAILED", message: "The step could not complete; standard ones were used" },
};

export interface BillingService {
  url: string;
  /** Requests that reached it, by way. */
  arrivals: (way?: AnswerWay) => number;
  /** Reports it created and billed, by way. */
  creates: (way?: AnswerWay) => number;
  billedCents: () => number;
  close: () => Promise<void>;
}

/** The address that asks for `way`, as the `n`th distinct property. */
export function addressFor(way: AnswerWay, n = 0): string {
  return `${10 + n} ${way[0]!.toUpperCase()}${way.slice(1)} St, Austin TX`;
}

function wayOf(body: string): AnswerWay {
  const address = (JSON.parse(body) as { fullAddress?: string }).fullAddress ?? "";
  return ANSWER_WAYS.find((w) => address.toLowerCase().includes(` ${w} st`)) ?? "plain";
}

export async function startBillingService(): Promise<BillingService> {
  const sandbox = buildSandbox({
    timeScale: 0,
    apiKeys: [BILLING_KEY],
    faults: { aiFailureRate: 0, aiTimeoutRate: 0 },
  });
  const arrived: AnswerWay[] = [];
  const billed: { way: AnswerWay; cents: number }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const way = wayOf(body);
      arrived.push(way);
      if (way === "zerowait") return void res.writeHead(429, { "retry-after": "0" }).end("slow down");
      if (way === "html") {
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end("<!doctype html><html><body><h1>Please sign in to the guest network</h1></body></html>");
      }
      if (way === "failure") {
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end('{"success":false,"error":"Could not geocode the address"}');
      }
      const asked = JSON.parse(body) as Record<string, unknown>;
      const ai = [asked.addAIComps === true && way !== "codefail", asked.addAIExpenseEstimates === true].filter(
        Boolean,
      );
      if (BILLS.has(way)) billed.push({ way, cents: 20 + 10 * ai.length });
      const { addAIComps: _c, addAIExpenseEstimates: _e, ...plain } = asked;
      void sandbox.app
        .inject({
          method: "POST",
          url: req.url ?? "/",
          headers: { "x-service-api-key": BILLING_KEY, "content-type": "application/json" },
          payload: way in AI_WARNINGS ? plain : body,
        })
        .then((answer) => answerIn(way, withWarning(answer.body, AI_WARNINGS[way]), res, timers));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const count = (list: AnswerWay[], way?: AnswerWay) => list.filter((w) => way === undefined || w === way).length;
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    arrivals: (way) => count(arrived, way),
    creates: (way) =>
      count(
        billed.map((b) => b.way),
        way,
      ),
    billedCents: () => billed.reduce((sum, b) => sum + b.cents, 0),
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sandbox.app.close();
    },
  };
}

function withWarning(text: string, warning: unknown): string {
  if (warning === undefined) return text;
  const answer = JSON.parse(text) as { warnings?: unknown[] };
  return JSON.stringify({ ...answer, warnings: [...(answer.warnings ?? []), warning] });
}

function answerIn(way: AnswerWay, text: string, res: http.ServerResponse, timers: Set<NodeJS.Timeout>): void {
  const json = { "content-type": "application/json" };
  switch (way) {
    case "truncated":
      return void res.writeHead(200, json).end(text.slice(0, Math.floor(text.length / 2)));
    case "nan":
      // A figure written as JavaScript writes NaN, and one as Infinity.
      return void res
        .writeHead(200, json)
        .end(
          text
            .replace(/"yearOneCashFlowUSD":[^,}]+/, '"yearOneCashFlowUSD":NaN')
            .replace(/"ltrPerMonthUSD":[^,}]+/, '"ltrPerMonthUSD":-Infinity'),
        );
    case "bom":
      return void res.writeHead(200, json).end(`\uFEFF${text}`);
    case "gzip":
      return void res.writeHead(200, { ...json, "content-encoding": "gzip" }).end(zlib.gzipSync(text));
    case "deflate":
      return void res.writeHead(200, { ...json, "content-encoding": "deflate" }).end(zlib.deflateSync(text));
    case "br":
      return void res.writeHead(200, { ...json, "content-encoding": "br" }).end(zlib.brotliCompressSync(text));
    case "nodata":
      return void res.writeHead(200, json).end('{"success":true}');
    case "trickle": {
      // A byte every 100 ms: never idle long enough for an idle timer, done only after minutes.
      res.writeHead(200, json);
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= text.length) {
          clearInterval(timer);
          timers.delete(timer);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(text[at++]);
      }, 100);
      timers.add(timer);
      return;
    }
    default:
      return void res.writeHead(200, json).end(text);
  }
}
