import path from "node:path";
import { Worker } from "node:worker_threads";
import type { SandboxOptionsInput } from "../../sandbox/sandbox-options";
import type { Sandbox } from "../../sandbox/sandbox-server";

/*
 * The sandbox a relay without a key calls over loopback, as it would call the service. It runs on a
 * thread of its own, so it stamps each request's arrival on its own event loop, as a separate
 * service does: on the relay's, every moment the relay was busy (a batch's checks, answers being
 * stored, str-screen writing its files) held the requests sent just before it, and the sandbox
 * saw them arrive bunched, over its limit of 100 in a second, and answered 429.
 *
 * A worker thread runs built JavaScript only: from the TypeScript sources (the test suite) the
 * sandbox runs on the relay's thread, where tests read its state (`inThread`).
 */

export interface EmbeddedSandbox {
  /** Where it listens: http://127.0.0.1:<port>. */
  url: string;
  /** The sandbox itself, when it runs on the relay's thread. */
  inThread: Sandbox | undefined;
  /** One of its public pages (a report, a listing, a photo), for the relay's /sandbox routes. */
  page(pagePath: string): Promise<SandboxPage>;
  close(): Promise<void>;
}

export interface SandboxPage {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export function startEmbeddedSandbox(options: SandboxOptionsInput): Promise<EmbeddedSandbox> {
  return path.extname(__filename) === ".js" ? onItsOwnThread(options) : onThisThread(options);
}

async function onItsOwnThread(options: SandboxOptionsInput): Promise<EmbeddedSandbox> {
  const worker = new Worker(path.join(__dirname, "..", "..", "sandbox", "worker.js"), { workerData: options });
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    worker.once("message", (m: { url: string }) => resolve(m.url));
    worker.once("error", reject);
    void exited.then(() => reject(new Error("the embedded sandbox's thread ended before it listened")));
  });
  return {
    url,
    inThread: undefined,
    async page(pagePath) {
      // Loaded when a page is first asked for: the thread starts before the relay's code has loaded.
      const { request } = await import("undici");
      const answer = await request(`${url}${pagePath}`);
      return {
        statusCode: answer.statusCode,
        headers: answer.headers,
        body: Buffer.from(await answer.body.arrayBuffer()),
      };
    },
    async close() {
      worker.postMessage("close");
      // It ends once its server has closed; a connection that holds it open past this is cut.
      const cut = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(cut);
    },
  };
}

async function onThisThread(options: SandboxOptionsInput): Promise<EmbeddedSandbox> {
  const { buildSandbox, listenOnLoopback } = await import("../../sandbox/sandbox-server");
  const sandbox = buildSandbox(options);
  return {
    url: await listenOnLoopback(sandbox),
    inThread: sandbox,
    async page(pagePath) {
      const page = await sandbox.app.inject({ method: "GET", url: pagePath });
      return { statusCode: page.statusCode, headers: page.headers, body: page.rawPayload };
    },
    close: () => sandbox.app.close(),
  };
}
