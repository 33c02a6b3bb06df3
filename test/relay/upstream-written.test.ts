import http from "node:http";
import net from "node:net";
import { Upstream } from "../../src/relay/upstream/upstream";

/**
 * The pacer counts a send from when its request was written, and until the write deadline at the
 * latest (pacer.ts): the call says so once the request has gone whole to its connection, not for a
 * request that never left, and never writes one after its deadline.
 */
const upstreamAt = (baseUrl: string, options: { connections?: number; writeDeadlineMs?: number } = {}) =>
  new Upstream({
    baseUrl,
    apiKey: "sk_test_written",
    apiKeyHeader: "x-bnbcalc-api-key",
    timeoutMs: 5000,
    connections: 4,
    userAgent: "test",
    redact: (t) => t,
    ...options,
  });

/** A service that counts the requests it receives whole and answers only when told to. */
async function heldService(): Promise<{
  url: string;
  received: () => number;
  answerAll: () => void;
  close: () => void;
}> {
  let received = 0;
  const waiting: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      waiting.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    received: () => received,
    answerAll: () => {
      for (const res of waiting.splice(0)) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ success: true, data: {} }));
      }
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("an upstream call says when its request was written, and gives up one not written in time", () => {
  test("once, when the request has been written whole: before the service has answered", async () => {
    let answer: (() => void) | undefined;
    const received = new Promise<void>((resolve) => {
      const server = http.createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          resolve();
          answer = () => {
            res.setHeader("content-type", "application/json");
            res.end(JSON.stringify({ success: true, data: {} }));
            server.close();
          };
        });
      });
      server.listen(0, "127.0.0.1", () => void call((server.address() as net.AddressInfo).port));
    });
    const written = jest.fn();
    let result: ReturnType<Upstream["call"]> | undefined;
    let upstream: Upstream | undefined;
    const call = (port: number) => {
      upstream = upstreamAt(`http://127.0.0.1:${port}`);
      result = upstream.call("buy", { fullAddress: "1 Main St" }, written);
    };
    await received;
    // The service has the whole request and has not answered yet.
    expect(written).toHaveBeenCalledTimes(1);
    answer?.();
    const done = await result;
    expect(done).toMatchObject({ kind: "answer", status: 200 });
    expect(written).toHaveBeenCalledTimes(1);
    await upstream?.close();
  });

  test("never, when the connection is refused: nothing left", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const upstream = upstreamAt(`http://127.0.0.1:${port}`);
    const written = jest.fn();
    const result = await upstream.call("buy", { fullAddress: "1 Main St" }, written);
    expect(result).toMatchObject({ kind: "failure", failure: { code: "UPSTREAM_CONNECT", sent: false } });
    expect(written).not.toHaveBeenCalled();
    await upstream.close();
  });

  test("a request no connection takes within the write deadline is given up unsent, and not written once one frees", async () => {
    const service = await heldService();
    // One connection, held by the first call: the second waits for it.
    const upstream = upstreamAt(service.url, { connections: 1, writeDeadlineMs: 200 });
    try {
      const first = upstream.call("buy", { fullAddress: "1 Main St" });
      while (service.received() < 1) await settle(5);
      const written = jest.fn();
      const start = performance.now();
      const second = await upstream.call("buy", { fullAddress: "2 Main St" }, written);
      expect(second).toMatchObject({ kind: "failure", failure: { code: "UPSTREAM_CONNECT", sent: false } });
      expect(performance.now() - start).toBeGreaterThanOrEqual(190);
      service.answerAll();
      expect(await first).toMatchObject({ kind: "answer", status: 200 });
      await settle(200);
      expect(service.received()).toBe(1);
      expect(written).not.toHaveBeenCalled();
    } finally {
      service.close();
      await upstream.destroy();
    }
  });

  test("a request whose connection opens past the deadline (the process stalled) is never written", async () => {
    const service = await heldService();
    const upstream = upstreamAt(service.url, { writeDeadlineMs: 20 });
    try {
      const written = jest.fn();
      const call = upstream.call("buy", { fullAddress: "1 Main St" }, written);
      // Busy: the connection cannot open before the deadline has passed.
      const until = performance.now() + 60;
      while (performance.now() < until);
      expect(await call).toMatchObject({ kind: "failure", failure: { code: "UPSTREAM_CONNECT", sent: false } });
      await settle(200);
      expect(service.received()).toBe(0);
      expect(written).not.toHaveBeenCalled();
    } finally {
      service.close();
      await upstream.destroy();
    }
  });
});
