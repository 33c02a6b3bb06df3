import net from "node:net";
import { ServerTimeouts } from "../../src/relay/http/server-timeouts";
import { BUY_PATH, TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

/**
 * A caller that sends a request a byte at a time, or never finishes it, or keeps an idle connection,
 * does not hold the relay's connections: a refusal before the body ends the connection, and every
 * phase has its time limit (short here; minutes in a real relay). Bounds are generous: what is
 * asserted is that the relay closes the socket, not how fast.
 */
interface Held {
  socket: net.Socket;
  received: () => string;
  closed: Promise<void>;
  /** Stops the trickle (the test ends either way). */
  stop: () => void;
}

/** Opens a socket, writes `head`, then one byte of `trickle` every `everyMs` until closed. */
function hold(port: number, head: string, trickle = "", everyMs = 100): Held {
  const socket = net.connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (c) => (text += String(c)));
  socket.on("error", () => undefined);
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable && i < trickle.length) socket.write(trickle[i++] as string);
  }, everyMs);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  void closed.then(() => clearInterval(timer));
  socket.write(head);
  return { socket, received: () => text, closed, stop: () => clearInterval(timer) };
}

/** Resolves true if the socket closed within `ms`, false otherwise. */
const closesWithin = (held: Held, ms: number) =>
  Promise.race([held.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);

const post = (port: number, headers: string) =>
  `POST ${BUY_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n${headers}\r\n`;

describe("the relay closes connections a caller holds", () => {
  let t: TestRelay;
  let port: number;
  const opened: Held[] = [];
  const track = (h: Held) => (opened.push(h), h);

  afterEach(async () => {
    for (const h of opened.splice(0)) {
      h.stop();
      h.socket.destroy();
    }
    await t.close();
  });

  async function start(serverTimeouts?: Partial<ServerTimeouts>) {
    t = await startRelay({}, serverTimeouts ? { serverTimeouts } : {});
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    port = (t.relay.app.server.address() as net.AddressInfo).port;
  }

  test("a refusal before the body is read (no token, a wrong one, a body too large) says Connection: close and closes", async () => {
    // The real relay's limits: only the early refusal can close these sockets within the test.
    await start();
    const cases = [
      post(port, ""),
      post(port, "authorization: Bearer wrong-token-0123456789\r\n"),
      `POST ${BUY_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nauthorization: Bearer ${TEST_TOKEN}\r\ncontent-length: 99999999\r\n\r\n`,
    ];
    const held = cases.map((head) => track(hold(port, head, "x".repeat(1000))));
    const closed = await Promise.all(held.map((h) => closesWithin(h, 15_000)));
    expect(closed).toEqual([true, true, true]);
    const statuses = held.map((h) => Number(/^HTTP\/1\.1 (\d+)/.exec(h.received())?.[1]));
    expect(statuses).toEqual([401, 401, 413]);
    for (const h of held) expect(h.received()).toMatch(/\r\nconnection: close\r\n/i);
  });

  test("a request whose body never ends is answered 408, with the security headers, and closed", async () => {
    await start({ headersMs: 500, requestMs: 1000, checkEveryMs: 100 });
    const h = track(hold(port, post(port, `authorization: Bearer ${TEST_TOKEN}\r\n`), "{".repeat(1000), 100));
    expect(await closesWithin(h, 15_000)).toBe(true);
    expect(h.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(h.received()).toMatch(/\r\nx-content-type-options: nosniff\r\n/);
    expect(h.received()).toMatch(/\r\ncache-control: no-store\r\n/);
  });

  test("headers sent a byte at a time are cut off", async () => {
    await start({ headersMs: 500, requestMs: 1000, checkEveryMs: 100 });
    const h = track(hold(port, "GET /healthz HTTP/1.1\r\n", "x-slow: ".padEnd(1000, "a"), 100));
    expect(await closesWithin(h, 15_000)).toBe(true);
    expect(h.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  test("an idle kept-alive connection is closed after its answer", async () => {
    await start({ keepAliveMs: 500 });
    const h = track(hold(port, `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`));
    expect(await closesWithin(h, 15_000)).toBe(true);
    expect(h.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(h.received()).not.toMatch(/connection: close/i);
  });

  test("the relay's own limits are minutes, not unlimited", async () => {
    await start();
    const server = t.relay.app.server;
    for (const ms of [server.requestTimeout, server.headersTimeout, server.keepAliveTimeout]) {
      expect(ms).toBeGreaterThanOrEqual(60_000);
      expect(ms).toBeLessThanOrEqual(600_000);
    }
  });
});
