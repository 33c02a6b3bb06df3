/*
 * The relay's own names, from configuration only: the host of RELAY_PUBLIC_URL, the host it
 * listens on, and this machine's loopback names. A request is never believed about who the relay
 * is: a page on `evil.example` whose name was pointed at 127.0.0.1 (DNS rebinding) sends
 * `Host: evil.example` and `Origin: http://evil.example`, and both are refused.
 */

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
/** Listening on every interface names no host. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

export interface OwnNamesConfig {
  publicUrl: string;
  /** RELAY_HOST: the address the relay listens on. */
  host: string;
  tls: boolean;
  /** RELAY_ALLOWED_ORIGINS, normalised (config.ts), with the public URL's origin. */
  allowedOrigins: readonly string[];
}

export class OwnNames {
  readonly #hosts: Set<string>;
  readonly #origins: Set<string>;
  readonly #scheme: string;

  constructor(config: OwnNamesConfig) {
    const listening = hostnameOf(
      config.host.includes(":") && !config.host.startsWith("[") ? `[${config.host}]` : config.host,
    );
    const names = [
      hostnameOf(new URL(config.publicUrl).host),
      ...LOOPBACK,
      ...(listening && !WILDCARD_HOSTS.has(listening) ? [listening] : []),
    ];
    this.#hosts = new Set(names.filter((n): n is string => n !== undefined));
    this.#origins = new Set(config.allowedOrigins);
    this.#scheme = config.tls ? "https:" : "http:";
  }

  /** True when the Host header names this relay (any port: a proxy may forward another one). */
  isOwnHost(hostHeader: string | undefined): boolean {
    const name = hostHeader === undefined ? undefined : hostnameOf(hostHeader);
    return name !== undefined && this.#hosts.has(name);
  }

  /**
   * True for an origin in RELAY_ALLOWED_ORIGINS (the public URL's included), or the relay's own
   * pages reached directly: one of its names, its scheme, and the port the request came in on.
   */
  isAllowedOrigin(origin: string, localPort: number | undefined): boolean {
    if (this.#origins.has(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin !== origin || url.protocol !== this.#scheme || !this.#hosts.has(url.hostname)) return false;
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    return port === localPort;
  }
}

/** The lower-case host name of a Host header or host[:port] text, or undefined if it is not one. */
function hostnameOf(host: string): string | undefined {
  if (host === "" || /[\s/?#@\\]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}
