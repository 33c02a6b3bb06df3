import { z } from "zod";
import {
  BatchItem,
  BatchLine,
  BatchStreamLine,
  PendingBody,
  isPendingLine,
  DryRunAnswer,
  HealthAnswer,
  OPERATION_PATHS,
  Operation,
  Priority,
  RelayAnswer,
  RelayErrorBody,
  UsageAnswer,
} from "../contract";
import { RelayCallError } from "./relay-call-error";

/*
 * The one typed client of the relay, used by the custom functions, the task pane and the CLI.
 * It runs wherever `fetch` does (Excel's browser runtime, Node 20): no Node modules, no Excel.
 * Every answer is parsed with the contract's schemas; every failure is a RelayCallError whose code
 * reads the same in a cell, in the pane and in the CLI.
 */

export interface RelayClientOptions {
  /** Where the relay is, e.g. https://relay.example.com (no trailing slash needed). */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  /**
   * How long to wait for one answer. The relay waits up to 300 s for the service (AI steps take
   * up to 90 s), plus its pacing queue, so this is longer. For a batch it is the longest silence
   * between two lines, not the whole batch.
   * @default 330000
   */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 330_000;

export interface CallOptions {
  /** Bypass the relay's cache: a billed refresh. */
  refresh?: boolean;
  signal?: AbortSignal;
}

export class RelayClient {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: RelayClientOptions) {
    if (!/^https?:\/\//i.test(options.baseUrl)) {
      throw new RelayCallError(
        "STR_NOT_CONFIGURED",
        `The relay URL must start with https:// (or http:// on this computer); got ${JSON.stringify(options.baseUrl)}.`,
      );
    }
    if (!options.token)
      throw new RelayCallError(
        "STR_NOT_CONFIGURED",
        "No relay token: paste the token the relay printed at its first start.",
      );
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((...args) => fetch(...args));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** One analysis: a create for a strategy, or enhance. */
  async analyze(op: Operation, params: unknown, options: CallOptions = {}): Promise<RelayAnswer> {
    const response = await this.#send(
      "POST",
      OPERATION_PATHS[op],
      params,
      options,
      options.refresh ? { "cache-control": "no-cache" } : {},
    );
    return this.#read(response, RelayAnswer);
  }

  /** What a batch would do and cost; spends nothing. */
  async dryRun(items: readonly BatchItem[], options: CallOptions = {}): Promise<DryRunAnswer> {
    const response = await this.#send("POST", "/v1/batch", { items, dryRun: true }, options);
    return this.#read(response, DryRunAnswer);
  }

  /**
   * Runs a batch; `onLine` gets each item's line as the relay writes it (completion order).
   * Resolves when the relay has answered every item; lines it could not read are skipped and
   * reported by the items they leave unanswered.
   *
   * The relay ends a batch's answer by its deadline (RELAY_MAX_REQUEST_SECONDS), so that no request
   * outlives what Excel and proxies allow: items still running come back pending. They are asked for
   * again here, in fresh requests that join the same work (never sent to the service twice), until
   * each has its answer — the caller only ever sees answers and real errors.
   *
   * `priority`: `formula` for cells waiting on the answers, `bulk` for screening; unset, the relay
   * decides by the batch's size (relay.md, "Sharing the account's rate").
   */
  async batch(
    items: readonly BatchItem[],
    options: CallOptions & {
      onLine: (line: BatchLine) => void;
      maxComparables?: number;
      priority?: Priority;
      /** Only answers already made or being made: nothing is sent (BatchRequest.joinOnly). */
      joinOnly?: boolean;
    },
  ): Promise<void> {
    let round = items.map((item, index) => ({ item, index }));
    let answeredAt = Date.now();
    while (round.length > 0) {
      const asked = round;
      const again: typeof round = [];
      let retryAfterMs = 0;
      try {
        await this.#batchOnce(
          asked.map((a) => a.item),
          {
            ...options,
            onLine: (line) => {
              const at = asked[line.index];
              if (!at) return;
              if (!isPendingLine(line)) {
                answeredAt = Date.now();
                return options.onLine({ ...line, index: at.index });
              }
              retryAfterMs = Math.max(retryAfterMs, line.body.retryAfterSeconds * 1000);
              again.push({ index: at.index, item: askAgain(at.item, line.body) });
            },
          },
        );
        // Still pending after as long as one answer may take: the relay is not getting anywhere.
        if (again.length > 0 && Date.now() - answeredAt > this.#timeoutMs) {
          throw new RelayCallError(
            "STR_RELAY_TIMEOUT",
            `The relay kept ${again.length} items pending for ${Math.round(this.#timeoutMs / 1000)} s without answering any.`,
          );
        }
        if (again.length > 0) await pause(retryAfterMs, options.signal);
      } catch (error) {
        // Stopped: the calls pending lines named wait a while at the relay for us to ask again (those
        // of this round's items not taken over yet, and those just named); say they are not wanted.
        await this.#cancelCalls([...asked, ...again].map((a) => a.item.call));
        throw error;
      }
      round = again;
    }
  }

  /** Stops the named calls the relay keeps for this caller's pending items, where not sent yet (best effort). */
  async #cancelCalls(calls: readonly (string | undefined)[]): Promise<void> {
    const named = [...new Set(calls.filter((c): c is string => c !== undefined))];
    if (named.length === 0) return;
    await this.#send("POST", "/v1/batch/cancel", { calls: named }, {}).catch(() => undefined);
  }

  /** One batch request, read line by line. */
  async #batchOnce(
    items: readonly BatchItem[],
    options: CallOptions & {
      onLine: (line: BatchStreamLine) => void;
      maxComparables?: number;
      priority?: Priority;
      joinOnly?: boolean;
    },
  ): Promise<void> {
    const controller = new AbortController();
    const relayAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) relayAbort();
    options.signal?.addEventListener("abort", relayAbort, { once: true });
    try {
      const body = {
        items,
        ...(options.maxComparables !== undefined ? { maxComparables: options.maxComparables } : {}),
        ...(options.priority ? { priority: options.priority } : {}),
        ...(options.joinOnly ? { joinOnly: true } : {}),
      };
      const response = await this.#send("POST", "/v1/batch", body, { signal: controller.signal }, {}, false);
      if (!response.ok)
        await this.#read(
          { status: response.status, ok: false, headers: response.headers, text: await response.text() },
          z.never(),
        );
      if (!response.body)
        throw new RelayCallError("STR_RELAY_BAD_ANSWER", "The relay's batch answer has no body.", {
          status: response.status,
        });
      await readLines(response.body, this.#timeoutMs, controller, (text) => {
        const parsed = BatchStreamLine.safeParse(safeJson(text));
        if (parsed.success) options.onLine(parsed.data);
      });
    } catch (error) {
      throw this.#failure(error, options.signal, controller.signal);
    } finally {
      options.signal?.removeEventListener("abort", relayAbort);
    }
  }

  async usage(options: CallOptions = {}): Promise<UsageAnswer> {
    return this.#read(await this.#send("GET", "/v1/usage", undefined, options), UsageAnswer);
  }

  /** Liveness and mode; needs no token, so it also tells a wrong URL from a wrong token. */
  async health(options: CallOptions = {}): Promise<HealthAnswer> {
    return this.#read(await this.#send("GET", "/healthz", undefined, options), HealthAnswer);
  }

  /** A stored analysis by id, from the relay's store (no call to the service). */
  async analysis(id: string, options: CallOptions = {}): Promise<RelayAnswer> {
    return this.#read(
      await this.#send("GET", `/v1/analyses/${encodeURIComponent(id)}`, undefined, options),
      RelayAnswer,
    );
  }

  /**
   * Sends a request. With `whole`, the time limit covers the answer's headers and body and the
   * caller's signal is linked for that long; otherwise (a streamed batch) the caller's signal goes
   * to fetch as it is, so it can still cut the stream later, and the reader keeps its own time limit.
   */
  async #send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    options: CallOptions,
    headers?: Record<string, string>,
  ): Promise<Answered>;
  async #send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    options: CallOptions,
    headers: Record<string, string>,
    whole: false,
  ): Promise<Response>;
  async #send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    options: CallOptions,
    headers: Record<string, string> = {},
    whole = true,
  ): Promise<Answered | Response> {
    const init: RequestInit = {
      method,
      headers: {
        authorization: `Bearer ${this.#token}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    if (!whole) {
      try {
        return await this.#fetch(`${this.baseUrl}${path}`, {
          ...init,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        throw this.#failure(error, options.signal, options.signal ?? new AbortController().signal);
      }
    }
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () =>
        controller.abort(
          new RelayCallError(
            "STR_RELAY_TIMEOUT",
            `The relay did not answer within ${Math.round(this.#timeoutMs / 1000)} s.`,
          ),
        ),
      this.#timeoutMs,
    );
    try {
      const response = await this.#fetch(`${this.baseUrl}${path}`, { ...init, signal: controller.signal });
      // Read the body while the time limit and the caller's signal still apply.
      return { status: response.status, ok: response.ok, headers: response.headers, text: await response.text() };
    } catch (error) {
      throw this.#failure(error, options.signal, controller.signal);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  async #read<T>(response: Answered, schema: z.ZodType<T>): Promise<T> {
    const { text } = response;
    const json = safeJson(text);
    if (!response.ok) {
      const body = RelayErrorBody.safeParse(json);
      if (body.success) throw RelayCallError.fromBody(response.status, body.data, response.headers.get("retry-after"));
      throw new RelayCallError(
        "STR_RELAY_BAD_ANSWER",
        `The relay answered ${response.status} without its error shape${text ? `: ${text.slice(0, 120)}` : ""}. Is the URL the relay's?`,
        { status: response.status },
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new RelayCallError(
        "STR_RELAY_BAD_ANSWER",
        `The relay's answer is not in the expected shape (${response.status}). Is the URL the relay's?`,
        { status: response.status },
      );
    return parsed.data;
  }

  /** Classifies a failure: the caller's cancel, the client's timeout, or no relay to talk to. */
  #failure(error: unknown, callerSignal: AbortSignal | undefined, ownSignal: AbortSignal): RelayCallError {
    if (error instanceof RelayCallError) return error;
    if (callerSignal?.aborted) return new RelayCallError("STR_CANCELLED", "Cancelled.", { cause: error });
    if (ownSignal.aborted && ownSignal.reason instanceof RelayCallError) return ownSignal.reason;
    const reason = error instanceof Error ? error.message : String(error);
    return new RelayCallError(
      "STR_RELAY_UNREACHABLE",
      `Could not reach the relay at ${this.baseUrl} (${reason}). Is it running, and is the URL in Settings right?`,
      { cause: error },
    );
  }
}

/** An answer read whole. */
interface Answered {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Reads a stream of UTF-8 lines; aborts when no byte arrives for `idleMs`. Each chunk is decoded
 * once and its lines are read in place; only a line cut between two chunks is put together, so a
 * long answer is not copied again for every chunk that arrives.
 */
async function readLines(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
  controller: AbortController,
  onLine: (line: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(
      () =>
        controller.abort(
          new RelayCallError("STR_RELAY_TIMEOUT", `The relay sent nothing for ${Math.round(idleMs / 1000)} s.`),
        ),
      idleMs,
    );
  };
  try {
    arm();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arm();
      const text = decoder.decode(value, { stream: true });
      let start = 0;
      for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
        const line = (rest === "" ? text.slice(start, newline) : rest + text.slice(start, newline)).trim();
        rest = "";
        start = newline + 1;
        if (line) onLine(line);
      }
      rest += text.slice(start);
    }
    const last = (rest + decoder.decode()).trim();
    if (last) onLine(last);
  } finally {
    if (timer) clearTimeout(timer);
    reader.releaseLock();
  }
}

/**
 * The item to send again for a pending line: as it was, naming the call the line named (its answer
 * and cost are this item's), and a refresh with the relay's `freshSince`, so the answer of the call
 * it started is taken rather than a new one bought. A refresh pending without it (a relay that does
 * not say) is asked for plainly, never resent.
 */
function askAgain(item: BatchItem, pending: PendingBody): BatchItem {
  const { call: _earlier, ...rest } = item;
  const again: BatchItem = pending.call ? { ...rest, call: pending.call } : rest;
  if (!again.refresh) return again;
  return pending.freshSince
    ? { ...again, refresh: true, freshSince: pending.freshSince }
    : { ...again, refresh: false };
}

/** Waits `ms`, or until `signal` aborts (then throws its reason as the client's cancellation). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RelayCallError("STR_CANCELLED", "Cancelled."));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RelayCallError("STR_CANCELLED", "Cancelled."));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
