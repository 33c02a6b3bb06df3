import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { API_KEY_HEADER } from "../../src/contract";
import * as fromSources from "../../src/relay/upstream/embedded-sandbox";
import { BUY_PATH, buyBody } from "../support/relay";

/*
 * The relay's embedded sandbox counts requests against its limit when they reach it. On a thread of
 * its own it reads them as they arrive, however busy the relay's thread is; on the relay's thread,
 * requests sent before a busy moment are read only after it, and look to it bunched with those sent
 * a second later. The built relay (what `npm start` and str-screen run) puts it on its own thread;
 * from the TypeScript sources (this suite) it runs on the caller's, where tests read its state.
 */

const BUILT = path.resolve(__dirname, "../../lib/relay/upstream/embedded-sandbox.js");

/** The built module, as npm start and str-screen load it: a worker thread runs JavaScript only. */
function built(): typeof fromSources {
  if (!fs.existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build:node first (npm test does)`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(BUILT) as typeof fromSources;
}
const KEY = "sk_test_embedded_sandbox";
const LIMIT = 10;
const options = {
  apiKeys: [KEY],
  timeScale: 0,
  faults: { rateLimitPerSecond: LIMIT, aiFailureRate: 0, aiTimeoutRate: 0 },
};

/** A connected socket that sends one request when told and resolves with its answer's status. */
async function connection(port: number): Promise<{ send(n: number): void; status: Promise<number> }> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let text = "";
  const status = new Promise<number>((resolve, reject) => {
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    socket.once("error", reject);
  });
  void status.finally(() => socket.destroy());
  return {
    send(n) {
      const body = JSON.stringify(buyBody(n));
      socket.write(
        `POST ${BUY_PATH} HTTP/1.1\r\nhost: 127.0.0.1\r\n${API_KEY_HEADER}: ${KEY}\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    },
    status,
  };
}

/** Holds this thread, as a relay busy with a batch's checks or an answer's storing does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * LIMIT requests, this thread busy for 800 ms right after; LIMIT more 1.4 s after the first: their
 * statuses. Read as they arrive, the two sets are 1.4 s apart, and 0.4 s of lateness in reading the
 * first leaves them in different seconds; read after the stall, 0.6 s apart, in one.
 */
async function limitTwiceAcrossAStall(start: typeof fromSources.startEmbeddedSandbox): Promise<number[]> {
  const sandbox = await start(options);
  try {
    const port = Number(new URL(sandbox.url).port);
    const first = await Promise.all(Array.from({ length: LIMIT }, () => connection(port)));
    const second = await Promise.all(Array.from({ length: LIMIT }, () => connection(port)));
    const sentAt = performance.now();
    first.forEach((c, n) => c.send(n));
    busy(800);
    await new Promise((resolve) => setTimeout(resolve, sentAt + 1400 - performance.now()));
    second.forEach((c, n) => c.send(LIMIT + n));
    return await Promise.all([...first, ...second].map((c) => c.status));
  } finally {
    await sandbox.close();
  }
}

describe("the embedded sandbox counts requests when they reach it", () => {
  test("on its own thread (the built relay), a busy relay thread does not bunch them: none over the limit", async () => {
    const statuses = await limitTwiceAcrossAStall(built().startEmbeddedSandbox);
    expect(statuses).toEqual(Array(2 * LIMIT).fill(200));
  });

  test("on its own thread, its report pages reach the relay's /sandbox routes", async () => {
    const sandbox = await built().startEmbeddedSandbox(options);
    try {
      const created = await fetch(`${sandbox.url}${BUY_PATH}`, {
        method: "POST",
        headers: { [API_KEY_HEADER]: KEY, "content-type": "application/json" },
        body: JSON.stringify(buyBody(1)),
      });
      const id = ((await created.json()) as { data: { _id: string } }).data._id;
      const page = await sandbox.page(`/reports/${id}`);
      expect(page.statusCode).toBe(200);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.body.toString("utf8")).toContain(`id ${id}`);
      expect((await sandbox.page("/reports/nothing-here")).statusCode).toBe(404);
    } finally {
      await sandbox.close();
    }
  });

  test("on the relay's thread, the same stall makes the first requests arrive late, and some of the next are answered 429", async () => {
    const statuses = await limitTwiceAcrossAStall(fromSources.startEmbeddedSandbox);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
    expect(statuses.slice(LIMIT)).toContain(429);
  });
});
