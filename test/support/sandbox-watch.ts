import type { Sandbox } from "../../src/sandbox/sandbox-server";

/*
 * From the TypeScript sources the relay's embedded sandbox runs on the test's own thread
 * (relay/upstream/embedded-sandbox.ts): this watches every one put on a loopback port, so a test can tell
 * whether one was left running.
 */

export interface WatchedSandboxes {
  /** Whether any sandbox put on a port meanwhile still listens, once each has finished starting. */
  anyListening(): Promise<boolean>;
  /** How many were put on a port. */
  readonly count: number;
  /** Stops watching and closes every one still open. */
  restore(): Promise<void>;
}

export async function watchSandboxes(): Promise<WatchedSandboxes> {
  const server = await import("../../src/sandbox/sandbox-server");
  const listen = server.listenOnLoopback;
  const started: { sandbox: Sandbox; url: Promise<string> }[] = [];
  const spy = jest.spyOn(server, "listenOnLoopback").mockImplementation((sandbox) => {
    const url = listen(sandbox);
    started.push({ sandbox, url });
    return url;
  });
  return {
    async anyListening() {
      await Promise.allSettled(started.map((s) => s.url));
      return started.some((s) => s.sandbox.app.server.listening);
    },
    get count() {
      return started.length;
    },
    async restore() {
      spy.mockRestore();
      await Promise.all(started.map((s) => s.sandbox.app.close()));
    },
  };
}
