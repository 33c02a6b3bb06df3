import http from "node:http";
import net from "node:net";
import { Upstream } from "../../src/relay/upstream";

/**
 * The pacer counts a send from when its request was written (pacer.ts): the call says so once the
 * request has gone whole to its connection, and not for a request that never left.
 */
const upstreamAt = (baseUrl: string) =>
  new Upstream({
    baseUrl,
    apiKey: "sk_test_written",
    timeoutMs: 5000,
    connections: 4,
    userAgent: "test",
    redact: (t) => t,
  });

describe("an upstream call says when its request was written", () => {
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
});
