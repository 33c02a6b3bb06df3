import net from "node:net";
import { TestRelay, startRelay } from "../support/relay";

/**
 * Answers given before any route runs: a request without Host, a line Node's parser refuses, a
 * request past its time. Node would answer these itself, bare; the relay's carry its headers.
 */
function send(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let got = "";
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
    socket.on("data", (c) => (got += String(c)));
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
    socket.write(text);
  });
}

const headerOf = (answer: string, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, "i").exec(answer.split("\r\n\r\n")[0] + "\r\n")?.[1];

describe("early answers carry the security headers", () => {
  let t: TestRelay;
  let port: number;
  beforeAll(async () => {
    t = await startRelay({}, { serverTimeouts: { headersMs: 300, requestMs: 600, checkEveryMs: 100 } });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    port = (t.relay.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  test.each([
    ["an HTTP/1.1 request without Host", "GET /healthz HTTP/1.1\r\nconnection: close\r\n\r\n", 400],
    ["a request line Node cannot parse", "GARBAGE\r\n\r\n", 400],
    ["a request whose headers never end", "GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n", 408],
  ])("%s", async (_name, text, status) => {
    const answer = await send(port, text);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(headerOf(answer, "x-content-type-options")).toBe("nosniff");
    expect(headerOf(answer, "referrer-policy")).toBe("no-referrer");
    expect(headerOf(answer, "cache-control")).toBe("no-store");
    expect(headerOf(answer, "content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(answer).toContain('"code":"STR_BAD_REQUEST"');
  });

  test("an HTTP/1.0 probe without Host is still answered", async () => {
    const answer = await send(port, "GET /healthz HTTP/1.0\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
