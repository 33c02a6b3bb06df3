import { EventEmitter, once } from "node:events";
import net from "node:net";
import { postgresPool, redisClient } from "../../src/relay/store/shared-clients";
import { partError } from "../../src/relay/store/store-down";

/**
 * While a store is away, callers read why in the relay's words: what happened and what to do, not
 * the client libraries' messages (which name their options, such as ioredis's maxRetriesPerRequest).
 * The errors below are the real ones: from a server that accepts connections and answers nothing
 * but the handshake of a Redis client (CLIENT SETNAME, SETINFO, then INFO).
 */
const INTERNALS =
  /maxRetriesPerRequest|enableOfflineQueue|Stream isn't|Command timed out|Refer to|timeout exceeded|Connection terminated/;

async function silentServer(): Promise<{
  port: number;
  /** Emits each command's name (lower case) as it arrives. */
  commands: EventEmitter;
  dropAll(): void;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  const commands = new EventEmitter();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("data", (chunk: Buffer) => {
      for (const [, command] of chunk.toString().matchAll(/\*\d+\r\n\$\d+\r\n(\w+)/g)) {
        commands.emit(command?.toLowerCase() ?? "");
        if (command?.toLowerCase() === "info") s.write("$11\r\nloading:0\r\n\r\n");
        else if (command?.toLowerCase() === "client") s.write("+OK\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const dropAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    commands,
    dropAll,
    close: () => {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function expectProductWords(message: string, part: "Redis" | "Postgres", variable: string): void {
  expect(message).not.toMatch(INTERNALS);
  expect(message).toMatch(
    new RegExp(`^The relay's store is unavailable \\(${part}: [a-z ,0-9]+\\)\\. Nothing was sent to the service\\.`),
  );
  expect(message).toMatch(new RegExp(`check that ${part} \\(${variable}\\) is running`));
}

describe("STR_STORE_UNAVAILABLE says what happened in the relay's words", () => {
  test("Redis: a command in flight when the connection drops, one that gets no answer, one sent while disconnected", async () => {
    const server = await silentServer();
    const redis = redisClient(`redis://127.0.0.1:${server.port}`, "str-relay-test");
    try {
      await new Promise((resolve) => redis.once("ready", resolve));
      const received = once(server.commands, "get");
      const inFlight = redis.get("k").catch((e: unknown) => e);
      await received;
      server.dropAll();
      const dropped = (await inFlight) as Error;
      expect(dropped.message).toMatch(/maxRetriesPerRequest/);
      const lost = partError("Redis", dropped);
      expectProductWords(lost.message, "Redis", "REDIS_URL");
      expect(lost.message).toMatch(/Redis: connection lost/);
      expect(lost.cause).toBe(dropped);

      const offline = (await redis.get("k").catch((e: unknown) => e)) as Error;
      expect(offline.message).toMatch(/enableOfflineQueue/);
      expectProductWords(partError("Redis", offline).message, "Redis", "REDIS_URL");

      await new Promise((resolve) => redis.once("ready", resolve));
      const unanswered = (await redis.get("k").catch((e: unknown) => e)) as Error;
      expect(unanswered.message).toMatch(/Command timed out/);
      expect(partError("Redis", unanswered).message).toMatch(/Redis: no answer in time/);
      expectProductWords(partError("Redis", unanswered).message, "Redis", "REDIS_URL");
    } finally {
      redis.disconnect();
      await server.close();
    }
  });

  test("Postgres: no connection in time", async () => {
    const server = await silentServer();
    const pool = postgresPool(`postgres://u@127.0.0.1:${server.port}/db`, "str-relay-test");
    try {
      const error = (await pool.query("SELECT 1").catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/timeout/);
      expect(partError("Postgres", error).message).toMatch(/Postgres: no answer in time/);
      expectProductWords(partError("Postgres", error).message, "Postgres", "DATABASE_URL");
    } finally {
      await pool.end().catch(() => undefined);
      await server.close();
    }
  });

  test("a reason the relay wrote itself is kept as it is", () => {
    const message = partError("Redis", new Error("its answers take over 30 ms, too slow to pace sends")).message;
    expect(message).toMatch(/\(Redis: its answers take over 30 ms, too slow to pace sends\)/);
  });
});
