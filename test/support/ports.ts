import net from "node:net";

/** A loopback port nothing listens on at this moment: for a server to take, or for a call that must be refused. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A loopback port held until `release()`, for a relay whose URL must be known before it is built and
 * which listens on it after: while held, the relay's own embedded sandbox (which listens on any free
 * port as the relay starts) or another suite cannot be given it. Release it just before listening.
 */
export function reservedPort(): Promise<{ port: number; release(): Promise<void> }> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      resolve({ port, release: () => new Promise<void>((done) => s.close(() => done())) });
    });
  });
}
