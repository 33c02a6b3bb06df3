import net from "node:net";

/**
 * One HTTP/1.1 request written byte for byte on a real socket, as an attacker would send it: the
 * request target goes out exactly as given (percent-encoding, dot segments, fragments, absolute
 * form), which no HTTP client library allows.
 */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body = "",
): Promise<RawAnswer> {
  const lines = [`${method} ${target} HTTP/1.1`];
  const all: Record<string, string> = { host: `127.0.0.1:${port}`, connection: "close", ...headers };
  if (body !== "") all["content-length"] = String(Buffer.byteLength(body));
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${target}`)));
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(":");
        if (at > 0) parsed[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1] ?? 0), headers: parsed, body: rest.join("\r\n\r\n") });
    });
    socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
  });
}
