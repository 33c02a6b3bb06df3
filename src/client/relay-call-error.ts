import { Billing, ClientErrorCode, FieldIssue, RelayErrorBody, RelayErrorCode } from "../contract";

/** Every error a relay call can end in: the relay's own codes and the client's (ClientErrorCode). */
export class RelayCallError extends Error {
  override readonly name = "RelayCallError";
  readonly code: RelayErrorCode | ClientErrorCode | (string & {});
  /** HTTP status from the relay; 0 when there was no answer. */
  readonly status: number;
  readonly fields: FieldIssue[] | undefined;
  /** Seconds to wait before trying again, when the relay said so. */
  readonly retryAfterSeconds: number | undefined;
  /** What the failed call cost, when the relay said (src/sheet/errors.ts reads it). */
  readonly billing: Billing | undefined;

  constructor(
    code: RelayCallError["code"],
    message: string,
    extra: {
      status?: number;
      fields?: FieldIssue[] | undefined;
      retryAfterSeconds?: number | undefined;
      billing?: Billing | undefined;
      cause?: unknown;
    } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.code = code;
    this.status = extra.status ?? 0;
    this.fields = extra.fields;
    this.retryAfterSeconds = extra.retryAfterSeconds;
    this.billing = extra.billing;
  }

  static fromBody(status: number, body: RelayErrorBody, retryAfter?: string | null): RelayCallError {
    const seconds = retryAfter ? Number(retryAfter) : undefined;
    return new RelayCallError(body.error.code, body.error.message, {
      status,
      fields: body.error.fields,
      billing: body.error.billing,
      retryAfterSeconds: seconds !== undefined && Number.isFinite(seconds) ? seconds : undefined,
    });
  }

  /** The wire shape, for places that carry errors as data (batch lines, the CLI's report). */
  toBody(): RelayErrorBody {
    return {
      success: false,
      error: {
        code: this.code,
        message: this.message,
        ...(this.fields ? { fields: this.fields } : {}),
        ...(this.billing ? { billing: this.billing } : {}),
      },
    };
  }
}

export function isCancelled(error: unknown): boolean {
  return error instanceof RelayCallError && error.code === "STR_CANCELLED";
}
