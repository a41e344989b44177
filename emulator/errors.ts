import { randomBytes } from "node:crypto";

/**
 * A refusal of the service. Rendered as the spec's envelope: {error, error_code, error_id, timestamp}, plus
 * error_code_public where the spec gives one and any extra fields the spec puts in the body.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function newErrorId(): string {
  return `err_${randomBytes(8).toString("hex")}`;
}

export function errorBody(error: ApiError, timestamp: string): Record<string, unknown> {
  return {
    error: error.message,
    error_code: error.code,
    error_id: newErrorId(),
    timestamp,
    ...error.extra,
  };
}
