/**
 * Errors a person should read. Anything else thrown inside an action is logged and shown as a generic message.
 */
export type AppErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "INVALID_INPUT"
  | "NOT_FOUND"
  | "CONFLICT"
  | "NO_GAME_SELECTED"
  | "SERVICE_ERROR"
  | "RATE_LIMITED";

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly field?: string;

  constructor(code: AppErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.field = options.field;
  }
}

/**
 * A refusal by the two-person rule (Settings → Payouts): the person is the one who prepared, entered or recorded what
 * they now ask to approve, confirm or undo. Such refusals are audited (auditTwoPersonRefusals, lib/audit.ts): a control
 * that refused someone leaves a trace of who tried what.
 */
export class TwoPersonRefusal extends AppError {
  constructor(message: string) {
    super("FORBIDDEN", message);
    this.name = "TwoPersonRefusal";
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
