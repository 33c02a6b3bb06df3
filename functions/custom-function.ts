import { FieldIssue, Operation, RelayAnswer, SessionAnswer } from "../src/contract";
import { Cancelable, RelayCallError, RequestSource, addinConnection, refreshGate } from "../src/client";
import {
  FormattedNumberSupport,
  Grid,
  HostSupport,
  PLAIN_HOST,
  SheetError,
  formattedNumberSupport,
  invalidArgument,
  sheetError,
  toCellValues,
} from "../src/sheet";

/*
 * The one way every STR.* function runs (functions/functions.ts). It owns what Excel asks of each
 * of them, so no function can do it its own way or forget it:
 * - Value preview: Excel evaluates a formula while it is being typed (Microsoft's "Work with formula
 *   value preview mode in your custom functions", learn.microsoft.com/office/dev/add-ins/excel/
 *   custom-functions-formula-value-preview). A `billable` function then reads its arguments (a bad
 *   one still shows #VALUE!) and answers a placeholder: nothing is asked of the relay, so nothing
 *   is billed before Enter. A `free` function runs as usual.
 * - Cancellation: Excel cancels a call when its cell is deleted or recalculated. The call settles
 *   at once with #N/A, and what it waits for is dropped (the batcher's hook, the fetches' signal).
 * - Errors: whatever a function throws becomes an Excel error with a message saying what to do
 *   (src/sheet/errors.ts); an argument src/inputs refused is #VALUE! (`accepted`); a grid becomes
 *   Excel values for this host.
 * - The relay: a function asks it (`ask`) or reads a stored analysis (`storedAnswer`) for its call,
 *   so Excel's cancel reaches the request.
 */

export type Invocation = CustomFunctions.CancelableInvocation | null | undefined;

/** What a function answers: formatted cells, or Excel values it built itself (STR.CARD's entity). */
export type Answer = Grid | { excelValues: unknown[][] };

/** What a running call gives the work it waits for, so that a cancel reaches it. */
export interface Call {
  /** True once Excel has cancelled the call: work not begun yet must not begin (see ask). */
  readonly cancelled: boolean;
  /** For the batcher (src/client/batcher.ts), which sets its hook here. */
  readonly cancelable: Cancelable;
  /** For the relay client's own fetches. */
  readonly signal: AbortSignal;
}

export interface FunctionBody<Args> {
  /** Reads the arguments; a bad one throws, naming it, and nothing is asked of the relay. */
  read: () => Args;
  /**
   * The answer. `args` reads the arguments on first use, once: the batcher reads a call when its
   * slice of a recalculation comes, so the first cells' request goes while the rest are read.
   */
  answer: (args: () => Args, call: Call) => Promise<Answer>;
}

export const PREVIEW_TEXT = "STR: the analysis runs when you press Enter.";

/** A function that may send a billable request: during value preview it only reads its arguments. */
export function billable<Args>(invocation: Invocation, body: FunctionBody<Args>): Promise<unknown[][]> {
  if (inValuePreview(invocation)) {
    try {
      body.read();
      return Promise.resolve([[PREVIEW_TEXT]]);
    } catch (error) {
      return Promise.reject(excelErrorOf(error));
    }
  }
  return run(invocation, body);
}

/** A function that only reads stored analyses or computes locally: never billed, so it runs in preview too. */
export function free<Args>(invocation: Invocation, body: FunctionBody<Args>): Promise<unknown[][]> {
  return run(invocation, body);
}

/**
 * The runtime's type says `string`, its documentation `true` or `false`: anything but a clear "no"
 * counts as preview, since guessing wrong the other way costs money.
 */
function inValuePreview(invocation: Invocation): boolean {
  const value: unknown = invocation?.isInValuePreview;
  return (
    value !== undefined && value !== null && value !== false && value !== "" && String(value).toLowerCase() !== "false"
  );
}

function run<Args>(invocation: Invocation, body: FunctionBody<Args>): Promise<unknown[][]> {
  return new Promise<unknown[][]>((resolve, reject) => {
    const call = new CallCancellation(invocation, () => reject(excelErrorOf(cancelled())));
    let answer: Promise<Answer>;
    try {
      answer = body.answer(once(body.read), call);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (result) => {
        call.settled();
        try {
          resolve(Array.isArray(result) ? toCellValues(result, hostSupport()) : result.excelValues);
        } catch (error) {
          reject(excelErrorOf(error));
        }
      },
      (error: unknown) => {
        call.settled();
        reject(excelErrorOf(error));
      },
    );
  });
}

/** Excel's cancel, passed on to the batcher's hook and to an AbortSignal made when first asked for. */
class CallCancellation implements Call {
  onCanceled: (() => void) | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  readonly #invocation: Invocation;

  constructor(invocation: Invocation, onCancel: () => void) {
    this.#invocation = invocation;
    if (!invocation) return;
    invocation.onCanceled = () => {
      this.#cancelled = true;
      this.#controller?.abort(cancelled());
      this.onCanceled?.();
      onCancel();
    };
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  get cancelable(): Cancelable {
    return this;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#cancelled && !this.#controller.signal.aborted) this.#controller.abort(cancelled());
    return this.#controller.signal;
  }

  /** A settled call has nothing left to cancel. */
  settled(): void {
    if (this.#invocation) this.#invocation.onCanceled = undefined;
  }
}

function once<T>(read: () => T): () => T {
  let done: { value: T } | undefined;
  return () => (done ??= { value: read() }).value;
}

/** What src/inputs read from the arguments, or #VALUE! naming every argument it refused: nothing is sent. */
export function accepted<Read extends { ok: true } | { ok: false; issues: readonly FieldIssue[] }>(
  read: Read,
): Extract<Read, { ok: true }> {
  if (!read.ok) throw invalidArgument(read.issues);
  return read as Extract<Read, { ok: true }>;
}

/** A request to the relay through the batcher, billed unless the relay has the answer, for `call`. */
export function ask(op: Operation, request: RequestSource, call: Call): Promise<SessionAnswer> {
  // The batcher asks the refresh gate when it reads the call: only the requests the pane priced are refreshes.
  const options = { gate: refreshGate, cancelable: call.cancelable };
  // Synchronously when the connection is ready: the call is queued in the tick Excel made it.
  const connection = addinConnection();
  const ready = connection.ready;
  if (ready) return ready.batcher.request(op, request, options);
  // Else once the settings are loaded, unless Excel cancelled the call meanwhile: the batcher hooks
  // a call's cancel only when it gets it, so one cancelled before would be sent and billed.
  return connection.get().then(({ batcher }) => {
    if (call.cancelled) throw cancelled();
    return batcher.request(op, request, options);
  });
}

/** An analysis by id: from the session when a formula already has it, else from the relay's store (free, no call to the service). */
export async function storedAnswer(id: string, call: Call): Promise<RelayAnswer> {
  const { batcher } = await addinConnection().get();
  return batcher.analysis(id) ?? batcher.rememberAnalysis(await storedFullAnswer(id, call));
}

/** An analysis by id from the relay's store, whole (comparables included): free, no call to the service. */
export async function storedFullAnswer(id: string, call: Call): Promise<RelayAnswer> {
  const { client } = await addinConnection().get();
  return client.analysis(id, { signal: call.signal });
}

export function cancelled(): RelayCallError {
  return new RelayCallError("STR_CANCELLED", "Cancelled.");
}

function excelErrorOf(error: unknown): CustomFunctions.Error {
  const sheet = isSheetError(error) ? error : sheetError(error);
  const code = sheet.kind === "value" ? CustomFunctions.ErrorCode.invalidValue : CustomFunctions.ErrorCode.notAvailable;
  return new CustomFunctions.Error(code, sheet.message);
}

function isSheetError(value: unknown): value is SheetError {
  return typeof value === "object" && value !== null && "kind" in value && "code" in value && "detail" in value;
}

let support: HostSupport | undefined;

/** Whether this Excel shows formatted numbers and data types from functions (ExcelApi 1.16+), asked once. */
export function hostSupport(): HostSupport {
  if (support) return support;
  const requirements = typeof Office === "undefined" ? undefined : Office.context?.requirements;
  const level: FormattedNumberSupport | undefined = requirements
    ? formattedNumberSupport((name, version) => requirements.isSetSupported(name, version))
    : undefined;
  support = level ? { formattedNumbers: level } : PLAIN_HOST;
  return support;
}
