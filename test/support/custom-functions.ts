/**
 * A stand-in for Excel's custom functions runtime: the CustomFunctions globals the functions use
 * (Error, ErrorCode) and an invocation whose cancel can be triggered, as Excel does when a cell is
 * deleted. Installed on globalThis before the functions are imported.
 */
export class ExcelError extends Error {
  constructor(
    readonly code: string,
    message?: string,
  ) {
    super(message);
  }
}

export function installCustomFunctionsRuntime(): void {
  (globalThis as Record<string, unknown>).CustomFunctions = {
    Error: ExcelError,
    ErrorCode: {
      invalidValue: "#VALUE!",
      notAvailable: "#N/A",
      divisionByZero: "#DIV/0!",
      invalidNumber: "#NUM!",
      nullReference: "#NULL!",
      invalidName: "#NAME?",
      invalidReference: "#REF!",
    },
  };
}

export interface TestInvocation {
  onCanceled?: () => void;
  isInValuePreview?: string;
  cancel(): void;
}

export function invocation(extra: { isInValuePreview?: string } = {}): TestInvocation {
  const inv: TestInvocation = {
    ...extra,
    cancel() {
      inv.onCanceled?.();
    },
  };
  return inv;
}

/** Runs a function call and returns its Excel error (code and message), or fails if it did not error. */
export async function excelError(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (e) {
    if (e instanceof ExcelError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected an Excel error");
}
